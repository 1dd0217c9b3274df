"""`check()` as a notebook calls it: source collected, graded as a file, shown as HTML."""

from __future__ import annotations

import linecache
import math
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
import torch
from support.reports import failing_report, passing_report
from torch import nn

from grader.notebook import HEADER, CheckResult, check, collect_source

SCALE_POWER = 0.5


def _scale(d_k: int) -> float:
    return d_k**SCALE_POWER


def causal_attention(q, k, v):
    t = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / _scale(q.shape[-1])
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))


@pytest.fixture
def graded(monkeypatch):
    """Stands in for grader.grade.self_check: records the file it was given, returns a fixed Report."""
    seen: dict = {}

    def self_check(path: Path, **options):
        seen["path"] = path
        seen["options"] = options
        seen["source"] = path.read_text(encoding="utf-8")
        return seen.get("report", failing_report())

    monkeypatch.setitem(sys.modules, "grader.grade", types.SimpleNamespace(self_check=self_check))
    return seen


def test_check_grades_the_functions_source_as_a_file(graded):
    result = check(causal_attention)
    src = graded["source"]
    assert src.startswith(HEADER)
    assert "def causal_attention(q, k, v):" in src
    assert "def _scale(d_k: int)" in src and "SCALE_POWER = 0.5" in src  # helpers the function uses
    assert "class SingleHead" not in src  # only what was asked for and what it needs
    assert graded["path"].suffix == ".py" and not graded["path"].exists()  # temporary, cleaned up
    html = result._repr_html_()
    assert html.startswith('<div class="grader-report">') and "Zero instead of -inf" in html
    assert repr(result).startswith("check: 2.5 / 11.5; needs work: Worked example")
    assert not result.passed


def test_check_of_a_class_brings_its_functions(graded):
    graded["report"] = passing_report()
    result = check(SingleHead)
    src = graded["source"]
    assert src.index("def causal_attention") < src.index("class SingleHead")
    assert "def _scale" in src
    assert result.passed and repr(result) == "check: 10.5 / 10.5; all checks passed"
    assert "All 4 checks passed" in result._repr_html_()
    assert result.report.submission == "notebook: SingleHead"
    assert graded["options"]["hint_key"] == "notebook: SingleHead"  # hints advance across runs


def test_collected_source_runs_on_its_own():
    """The file must work without this module: run the worked example through it in a fresh namespace."""
    ns: dict = {}
    exec(compile(collect_source(SingleHead), "<collected>", "exec"), ns)
    q = torch.tensor([[1.0, 0.0]] * 3, dtype=torch.float64)
    k = torch.tensor([[0.0, 0.0], [math.sqrt(2) * math.log(2), 0.0], [math.sqrt(2) * math.log(4), 0.0]],
                     dtype=torch.float64)
    v = torch.tensor([[2.0, 0.0], [0.0, 4.0], [6.0, 2.0]], dtype=torch.float64)
    out, weights = ns["causal_attention"](q, k, v)
    torch.testing.assert_close(weights[2], torch.tensor([1 / 7, 2 / 7, 4 / 7], dtype=torch.float64))
    torch.testing.assert_close(out[2], torch.tensor([26 / 7, 16 / 7], dtype=torch.float64))
    assert isinstance(ns["SingleHead"](6, 2), nn.Module)


_CELL_1 = textwrap.dedent("""
    import numpy as np
    D_K = 2

    def causal_attention(q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(D_K)
        return scores, scores
""")
_CELL_2 = textwrap.dedent("""
    class SingleHead(nn.Module):
        def forward(self, x):
            return causal_attention(x, x, x)
""")


def _notebook_kernel(monkeypatch) -> types.ModuleType:
    """A module built the way IPython builds one: no __file__, cell text only in linecache."""
    kernel = types.ModuleType("fake_kernel_main")
    kernel.__dict__.update(math=math, torch=torch, nn=nn)
    monkeypatch.setitem(sys.modules, "fake_kernel_main", kernel)
    for n, cell in enumerate((_CELL_1, _CELL_2)):
        filename = f"/tmp/ipykernel_4242/{n}.py"
        monkeypatch.setitem(linecache.cache, filename, (len(cell), None, cell.splitlines(True), filename))
        exec(compile(cell, filename, "exec"), kernel.__dict__)
    return kernel


def test_notebook_class_without_a_file_is_found_through_its_methods(graded, monkeypatch):
    kernel = _notebook_kernel(monkeypatch)
    with pytest.raises(TypeError):  # what Python 3.11 does for a notebook class; our fallback handles it
        import inspect

        inspect.getsource(kernel.SingleHead)
    check(kernel.SingleHead)
    src = graded["source"]
    assert "class SingleHead(nn.Module):" in src and "def causal_attention(q, k, v):" in src
    assert "D_K = 2" in src
    assert "import numpy as np" not in src  # the function does not use np
    compile(src, "<collected>", "exec")


def test_source_typed_at_a_plain_prompt_gives_a_clear_message(graded):
    ns: dict = {}
    exec("def causal_attention(q, k, v):\n    return q, q\n", ns)
    result = check(ns["causal_attention"])
    assert result.report is None and "path" not in graded
    assert "plain Python prompt" in repr(result) and "python -m grader check FILE" in repr(result)
    assert "could not check this" in result._repr_html_()


def test_wrong_arguments_give_clear_messages(graded):
    assert "check(causal_attention)" in repr(check())
    assert "3 is not one (it is of type int)" in repr(check(3))


def test_missing_self_check_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "grader.grade", None)  # makes the import fail
    result = check(causal_attention)
    assert isinstance(result, CheckResult) and "no self-check" in repr(result)


def test_import_grader_stays_cheap_and_check_is_exported():
    code = ("import sys, grader; heavy = [m for m in ('torch', 'matplotlib', 'rich') if m in sys.modules]; "
            "assert not heavy, heavy; from grader import check; "
            "from grader.notebook import check as c; assert check is c; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_real_self_check_on_the_reference():
    """With the lead's grader.grade present, the reference solution checked from source passes."""
    try:
        from grader.grade import self_check  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"grader.grade.self_check not importable yet: {exc}")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    try:
        from reference.attention import SingleHead as RefHead
        from reference.attention import causal_attention as ref_attention
    finally:
        sys.path.pop(0)
    result = check(ref_attention, RefHead)
    assert result.report is not None, result.problem
    assert result.passed, repr(result)
