"""Issue 25, item 6: no native code for the submission. ctypes, cffi, native libraries and new
interpreters are refused in the child (grader.sandbox.native), each refusal is recorded, and a file
that reaches for native code (in its source or its run) fails forbidden_api and earns nothing;
fused attention reached by walks, built names, __import__, importlib or the builtins is named too."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sandbox_kit import (
    GALLERY,
    REFERENCE,
    TEST_LIMITS,
    assert_healthy,
    attention_calls,
    gallery,
    needs_namespaces,
)

from grader import grade
from grader.checks.native import static_native
from grader.sandbox import Sandbox

# name -> what the child must have refused (a piece of each record), and whether the source alone names it.
NATIVE = {
    "native_ctypes_in_call": (["import ctypes"], True),
    "native_ctypes_found": (["ctypes.dlsym"], True),
    "native_import_tricks": (["import _ctypes", "ctypes.dlopen"], False),
    "native_load_library": (["torch.ops.load_library", "torch.classes.load_library"], True),
    "native_new_interpreter": (["import _xxsubinterpreters"], True),
    "native_unhook": (["a function's code replaced", "import _ctypes"], True),
    "native_subclass_walk": (["ctypes.dlopen"], True),
}
# What each file prints when the native door opened (in a plain process, the control).
OPENED = ("NATIVE", "LOADED", "CREATED", "UNHOOKED")
FUSED_DOORS = ["fused_attribute_walk", "fused_dunder_import", "fused_importlib_rot13", "fused_decomposition_table",
               "fused_nested_native_mha"]


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        yield sb


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_code_is_refused_and_recorded_in_the_child(name, sandbox):
    wanted, _ = NATIVE[name]
    res = sandbox.run(gallery(name), attention_calls(2))
    assert res.load.kind == "loaded" and res.failures == {}, (res.load.meta, res.failures)
    records = [[f for f in r.meta.get("fused", []) if f.startswith("native code: ")] for r in res.replies.values()]
    assert len(records) == 2 and all(records), records  # every call that tried is recorded
    for piece in wanted:
        assert any(piece in f for fused in records for f in fused), (piece, records)
    assert not any(line.startswith(OPENED) for line in res.output.splitlines()), res.output
    assert "REFUSED" in res.output
    assert_healthy(sandbox)


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_each_native_door_opens_in_a_plain_process(name):
    """The negative control: without the child's lock every one of these reaches native code."""
    code = ("import importlib.util, sys, torch\n"
            f"spec = importlib.util.spec_from_file_location('attack', {str(gallery(name))!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "m.causal_attention(*(torch.randn(2, 4, 3) for _ in range(3)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert any(line.startswith(OPENED) for line in done.stdout.splitlines()), done.stdout + done.stderr[-2000:]


def test_the_static_reading_finds_native_names_and_no_honest_file_has_one():
    for name, (_, named) in NATIVE.items():
        assert bool(static_native(gallery(name).read_text())) == named, name
    assert static_native("import ctypes") == ["ctypes"]
    assert static_native('m = __import__("ct" + "ypes")') == ["ctypes"]
    assert static_native('m = __import__("".join(["_ct", "ypes"]))') == ["_ctypes", "ctypes"]
    assert static_native('"""ctypes, only in a docstring"""\n# import ctypes\nimport math\n') == []
    honest = [REFERENCE, *sorted((GALLERY.parent / "variants").glob("*.py"))]
    assert all(static_native(p.read_text()) == [] for p in honest)


@needs_namespaces
@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_code_fails_forbidden_api_and_earns_nothing(name, sandbox):
    report = grade.grade_file(gallery(name), sandbox=sandbox, secret="gallery-secret")
    status = {c.id: c for c in report.checks}
    assert status["forbidden_api"].status == "failed" and "Native code" in status["forbidden_api"].feedback
    assert report.score == 0, {c.id: c.score for c in report.checks if c.score}


@needs_namespaces
@pytest.mark.parametrize("name", FUSED_DOORS)
def test_fused_attention_by_any_door_is_named_forbidden_api(name, sandbox):
    res = sandbox.run(gallery(name), attention_calls(1))
    assert any(f.startswith(("aten::", "torch.")) for f in res.replies["c0"].meta.get("fused", [])), res.replies
    report = grade.grade_file(gallery(name), sandbox=sandbox, secret="gallery-secret")
    assert {c.id: c.status for c in report.checks}["forbidden_api"] == "failed"
    assert report.score == 0, {c.id: c.score for c in report.checks if c.score}


@pytest.mark.parametrize("name", FUSED_DOORS)
def test_each_fused_door_computes_attention_in_a_plain_process(name):
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location(f"_door_{name}", gallery(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    q, k, v = (torch.randn(2, 4, 3, dtype=torch.float64) for _ in range(3))
    out, _ = module.causal_attention(q, k, v)
    torch.testing.assert_close(out, torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))


@needs_namespaces
def test_a_native_library_of_its_own_is_never_mapped_as_code(sandbox):
    """Written into the scratch directory (mounted noexec) or into a file in memory (memfd_create, refused
    by the syscall filter): neither loads. The control: in a plain process both load."""
    res = sandbox.run(gallery("native_dropped_library"), attention_calls(1))
    assert "LOADED" not in res.output, res.output
    assert "REFUSED dropped ImportError" in res.output and "failed to map segment" in res.output, res.output
    assert "REFUSED memfd PermissionError" in res.output, res.output
    report = grade.grade_file(gallery("native_dropped_library"), sandbox=sandbox, secret="gallery-secret")
    assert {c.id: c.status for c in report.checks}["forbidden_api"] == "failed" and report.score == 0
    code = ("import importlib.util, torch\n"
            f"spec = importlib.util.spec_from_file_location('attack', {str(gallery('native_dropped_library'))!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "m.causal_attention(*(torch.randn(2, 4, 3) for _ in range(3)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.count("LOADED") == 2, done.stdout + done.stderr[-2000:]


def _with_header(tmp_path, name: str, header: str):
    source = REFERENCE.read_text()
    path = tmp_path / f"{name}.py"
    path.write_text(header + "\n" + source)
    return path


@needs_namespaces
def test_a_library_that_tries_ctypes_and_copes_without_it_costs_nothing(tmp_path, sandbox):
    # A student's correct file that plots at the top level: matplotlib.pyplot reaches dateutil's Windows
    # time zones, whose `import ctypes` dateutil expects may fail (it catches ImportError). The refusal
    # stands, but as a missing module: the file imports, and nothing is held against it.
    path = _with_header(tmp_path, "plots", "import matplotlib.pyplot as plt")
    report = grade.grade_file(path, sandbox=sandbox, secret="gallery-secret")
    status = {c.id: c for c in report.checks}
    assert status["forbidden_api"].status == "passed", status["forbidden_api"].feedback
    assert report.score == report.max_score and not report.diagnoses, [(c.id, c.feedback) for c in report.checks if c.score < c.max_score]
    assert_healthy(sandbox)


@needs_namespaces
@pytest.mark.parametrize("header", [
    "try:\n    import ctypes\nexcept ImportError:\n    ctypes = None",
    "try:\n    ct = __import__(''.join(chr(c) for c in (99, 116, 121, 112, 101, 115)))\nexcept ImportError:\n    ct = None",
    "try:\n    exec('import ' + ''.join(chr(c) for c in (99, 116, 121, 112, 101, 115)))\nexcept ImportError:\n    pass",
])
def test_the_submissions_own_refused_import_is_held_against_it_even_when_caught(header, tmp_path, sandbox):
    report = grade.grade_file(_with_header(tmp_path, "own", header), sandbox=sandbox, secret="gallery-secret")
    status = {c.id: c for c in report.checks}
    assert status["forbidden_api"].status == "failed" and "Native code" in status["forbidden_api"].feedback
    assert report.score == 0
