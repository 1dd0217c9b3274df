"""The adversarial gallery at the sandbox level: each submission gets a named outcome, and the
next submission in the same sandbox is graded normally."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
import torch
from sandbox_kit import (
    REPO_ROOT,
    TEST_LIMITS,
    assert_healthy,
    attention_calls,
    gallery,
    load_reference,
    needs_namespaces,
    no_leftovers,
)

from grader.sandbox import Limits, Sandbox


def _failure_kinds(res) -> set[str]:
    return {f.kind for f in res.failures.values()}


# -- exits --------------------------------------------------------------------------------
def test_sys_exit_at_import_is_a_load_error(sandbox):
    res = sandbox.run(gallery("exit_at_import"), attention_calls())
    assert res.load.kind == "load_error" and res.load.meta["error_type"] == "SystemExit"
    assert res.replies == {}
    assert_healthy(sandbox)


def test_os_exit_at_import_is_process_exit(sandbox):
    res = sandbox.run(gallery("os_exit_at_import"), attention_calls())
    assert res.load is None
    assert res.failure.kind == "process_exit" and "status 0" in res.failure.message
    assert res.replies == {} and _failure_kinds(res) == {"process_exit"}
    assert_healthy(sandbox)


def test_sys_exit_in_call_is_an_error_reply(sandbox):
    res = sandbox.run(gallery("exit_in_call"), attention_calls())
    assert res.failure is None and res.failures == {}
    assert all(r.meta["ok"] is False and r.meta["error_type"] == "SystemExit" for r in res.replies.values())
    assert_healthy(sandbox)


def test_os_exit_in_call_fails_each_call_and_gives_up(sandbox):
    calls = attention_calls(5)
    res = sandbox.run(gallery("os_exit_in_call"), calls)
    assert res.replies == {}
    assert set(res.failures) == {c.meta["id"] for c in calls}
    assert _failure_kinds(res) == {"process_exit"}
    # Three children tried (the first and two restarts), the last two calls were not run.
    assert sum("gave up" in f.message for f in res.failures.values()) == 2
    assert_healthy(sandbox)


# -- hangs --------------------------------------------------------------------------------
def test_infinite_loop_times_out(sandbox):
    res = sandbox.run(gallery("infinite_loop"), attention_calls(1))
    assert res.failures["c0"].kind == "timeout" and "stopped at its limit" in res.failures["c0"].message
    # CPU time ends it, however busy the machine; the wall clock is only a backstop.
    assert res.wall_s < TEST_LIMITS.call_s * TEST_LIMITS.wall_factor + 5.0
    assert_healthy(sandbox)


def test_sigterm_ignored_sleep_times_out(sandbox):
    res = sandbox.run(gallery("sigterm_sleep"), attention_calls(1))
    assert res.failures["c0"].kind == "timeout"
    assert_healthy(sandbox)


def test_submission_deadline_caps_many_hanging_calls(sandbox):
    # Restarts stop at two: four hanging calls cost three call deadlines, not four.
    res = sandbox.run(gallery("infinite_loop"), attention_calls(4))
    assert _failure_kinds(res) == {"timeout"} and len(res.failures) == 4
    # Stopped at its first resource failure: one call's budget, the others never run.
    assert sum("stopped" in f.message for f in res.failures.values()) == 4
    assert sum("not run" in f.message for f in res.failures.values()) == 3


@needs_namespaces
def test_fork_bomb_is_contained_and_reaped(sandbox):
    res = sandbox.run(gallery("fork_bomb"), attention_calls(1))
    assert res.load is None and res.failure.kind == "timeout"
    assert no_leftovers(sandbox)
    assert_healthy(sandbox)


# -- memory and output --------------------------------------------------------------------
def test_8gib_in_call_is_a_memory_error(sandbox):
    res = sandbox.run(gallery("alloc_8gib"), attention_calls(1))
    reply = res.replies["c0"]
    assert reply.meta["ok"] is False and reply.meta["error_type"] == "MemoryError"
    assert_healthy(sandbox)


def test_8gib_at_import_is_a_memory_error(sandbox):
    res = sandbox.run(gallery("alloc_8gib_at_import"), attention_calls(1))
    assert res.load.kind == "load_error" and res.load.meta["error_type"] == "MemoryError"
    assert_healthy(sandbox)


def test_200mb_of_output_is_truncated_and_still_graded(sandbox):
    calls = attention_calls(2)
    res = sandbox.run(gallery("print_200mb"), calls)
    assert res.failure is None and res.failures == {}
    assert all(r.meta["ok"] for r in res.replies.values())
    assert len(res.output) <= TEST_LIMITS.output_bytes + 100
    assert res.output.startswith("x" * 1000) and "[output truncated]" in res.output
    assert res.wall_s < 5.0


# -- forged results, patched comparisons, rigged return values ------------------------------
@needs_namespaces
def test_results_json_never_reaches_the_grader(sandbox, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a cwd the submission could find through /proc/<pid>/cwd
    res = sandbox.run(gallery("results_json"), attention_calls(1))
    assert not (tmp_path / "results.json").exists()
    assert not (REPO_ROOT / "results.json").exists()
    assert not Path("/autograder/results/results.json").exists()
    # Only its own scratch dir (private, discarded) took the write.
    wrote = [line.split()[1] for line in res.output.splitlines() if line.startswith("WROTE")]
    assert all(p.startswith("/tmp/sandbox") for p in wrote), wrote
    assert_healthy(sandbox)


def test_monkeypatched_torch_stays_in_the_child(sandbox):
    res = sandbox.run(gallery("monkeypatch_torch"), attention_calls(1))
    assert res.replies["c0"].meta["ok"] is True  # it answered, with zeros
    a, b = torch.tensor([1.0]), torch.tensor([2.0])
    assert not torch.allclose(a, b) and not torch.equal(a, b)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(a, b)
    assert_healthy(sandbox)


@pytest.mark.parametrize("name", ["tensor_subclass", "rigged_eq"])
def test_rigged_return_values_are_rejected(sandbox, name):
    res = sandbox.run(gallery(name), attention_calls(1))
    reply = res.replies["c0"]
    assert reply.meta["ok"] is False and reply.meta["error_type"] == "WrongReturnType"
    assert all(type(t) is torch.Tensor for t in reply.tensors.values())


# -- the result pipe ------------------------------------------------------------------------
def test_garbage_on_the_pipe_at_import_is_a_protocol_error(sandbox):
    res = sandbox.run(gallery("garbage_at_import"), attention_calls(2))
    assert res.load is None and res.failure.kind == "protocol_error"
    assert _failure_kinds(res) == {"protocol_error"}
    assert_healthy(sandbox)


def test_huge_frame_in_call_is_a_protocol_error(sandbox):
    res = sandbox.run(gallery("huge_frame_in_call"), attention_calls(1))
    assert res.failures["c0"].kind == "protocol_error"
    assert "malformed" in res.failures["c0"].message
    assert_healthy(sandbox)


def test_lingering_thread_dies_with_the_child(sandbox):
    calls = attention_calls(3)
    res = sandbox.run(gallery("lingering_thread"), calls)
    ref = load_reference()
    # The forged bytes may land before a later reply and break it, never earn it.
    assert set(res.replies) | set(res.failures) == {c.meta["id"] for c in calls}
    assert _failure_kinds(res) <= {"protocol_error"}
    for call in calls:
        if call.meta["id"] in res.replies:
            out, _ = ref.causal_attention(*(call.tensors[x] for x in "qkv"))
            torch.testing.assert_close(res.replies[call.meta["id"]].tensors["out"], out)
    assert no_leftovers(sandbox)
    assert_healthy(sandbox)


# -- secrets: each with its negative control in an unisolated sandbox ------------------------
@needs_namespaces
def test_reference_and_rubric_are_hidden(sandbox, open_sandbox):
    res = sandbox.run(gallery("read_reference"), attention_calls(1))
    assert "FOUND" not in res.output
    assert res.replies["c0"].meta["ok"] is False  # "no reference to copy"
    control = open_sandbox.run(gallery("read_reference"), attention_calls(1))
    assert "FOUND" in control.output and control.replies["c0"].meta["ok"] is True
    assert_healthy(sandbox)


@needs_namespaces
def test_hidden_paths_cover_other_submissions(sandbox, open_sandbox):
    other = Path(os.path.realpath("/var/tmp")) / f"grader-test-other-{os.getpid()}"
    other.mkdir(exist_ok=True)
    (other / "reference").mkdir(exist_ok=True)
    (other / "reference" / "attention.py").write_text((REPO_ROOT / "reference" / "attention.py").read_text())
    os.chmod(other, 0o755)
    try:
        # A submission placed inside `other` would walk up into it: hide it.
        planted = other / "submission.py"
        planted.write_text(gallery("read_reference").read_text())
        res = sandbox.run(planted, attention_calls(1), hidden_paths=[other])
        assert res.load.kind == "loaded" and "FOUND" not in res.output
        control = open_sandbox.run(planted, attention_calls(1))
        assert "FOUND" in control.output
    finally:
        for p in sorted(other.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        other.rmdir()


def test_secret_in_environment_is_not_inherited(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADER_SECRET", "s3cret-value-42")
    with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        res = sb.run(gallery("read_secret"), attention_calls(1))
    assert "ENV" in res.output and "s3cret-value-42" not in res.output
    assert os.environ["GRADER_SECRET"] == "s3cret-value-42"  # the control: the grader has it


@needs_namespaces
def test_network_is_unreachable(sandbox, open_sandbox, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    source = tmp_path / "network.py"
    source.write_text(gallery("network").read_text().replace("PORT = 0", f"PORT = {port}"))
    try:
        res = sandbox.run(source, attention_calls(1))
        assert f"REFUSED 127.0.0.1 {port}" in res.output and "CONNECTED" not in res.output
        control = open_sandbox.run(source, attention_calls(1))
        assert f"CONNECTED 127.0.0.1 {port}" in control.output
    finally:
        listener.close()


def test_gc_walk_finds_no_expected_values(sandbox):
    # What the grader holds: an expected tensor carrying the sentinel the submission hunts for.
    expected = torch.full((2, 5, 3), 0.123456789)
    module = load_reference_module("gc_walk")
    assert module.hunt(), "negative control: in the grader's process the hunt finds it"
    res = sandbox.run(gallery("gc_walk"), attention_calls(1))
    assert "HITS 0" in res.output
    assert not torch.equal(res.replies["c0"].tensors["out"], expected)


def load_reference_module(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_gallery_{name}", gallery(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_namespaces
def test_planted_symlinks_lead_nowhere(sandbox, open_sandbox, tmp_path):
    keep = tmp_path / "grader-files"
    keep.mkdir()
    (keep / "precious.txt").write_text("do not delete")
    source = tmp_path / "symlinks.py"
    text = gallery("symlinks").read_text()
    source.write_text(
        text.replace('TARGET = ""', f"TARGET = {str(keep)!r}").replace(
            'REPO = ""', f"REPO = {str(REPO_ROOT)!r}"
        )
    )
    res = sandbox.run(source, attention_calls(1))
    assert "FOUND" not in res.output
    # Unisolated, the links work, but cleaning the scratch dir must not follow them.
    control = open_sandbox.run(source, attention_calls(1))
    assert "FOUND ref" in control.output
    assert (keep / "precious.txt").read_text() == "do not delete"


def test_symlinked_submission_is_refused(sandbox, tmp_path):
    link = tmp_path / "submission.py"
    link.symlink_to(REPO_ROOT / "reference" / "attention.py")
    res = sandbox.run(link, attention_calls(1))
    assert res.load.kind == "load_error" and res.load.meta["error_type"] == "SubmissionRefused"
    assert "symbolic link" in res.load.meta["message"] and res.replies == {}


def test_directory_or_huge_file_is_refused(sandbox, tmp_path):
    assert sandbox.run(tmp_path, attention_calls(1)).load.meta["error_type"] == "SubmissionRefused"
    huge = tmp_path / "huge.py"
    huge.write_bytes(b"#" * (sandbox.limits.source_bytes + 1))
    res = sandbox.run(huge, attention_calls(1))
    assert res.load.meta["error_type"] == "SubmissionRefused" and "bytes" in res.load.meta["message"]


def test_isolation_level_is_reported(sandbox, open_sandbox):
    expected = "namespaces+uid" if os.geteuid() == 0 else "rlimits-only"
    assert sandbox.isolation == expected
    assert open_sandbox.isolation == "rlimits-only"
    assert sandbox.run(gallery("exit_in_call"), attention_calls(1)).isolation == expected


# -- the same gallery through the whole grading pipeline --------------------------------------
V_V = "def causal_attention(q, k, v):\n    return v, v\n"
ZEROS = (
    "import torch\n\n\ndef causal_attention(q, k, v):\n"
    "    return torch.zeros_like(v), torch.zeros(q.shape[:-1] + (q.shape[-2],))\n"
)


def _function_only(name: str) -> str:
    """The honest twin of a correct-but-hostile submission: its function, without the attack."""
    text = gallery(name).read_text()
    body = text[text.index("def causal_attention") :]
    return "import math\n\nimport torch\n\n\n" + body.replace(
        "    threading.Thread(target=_haunt, daemon=True).start()\n", ""
    )


# name -> (a reason the report must name, the honest twin it may not outscore; None: must score 0)
GRADE_GALLERY = {
    "exit_at_import": ("SystemExit", None),
    "os_exit_at_import": ("process_exit", None),
    "exit_in_call": ("SystemExit", None),
    "os_exit_in_call": ("process_exit", None),
    "infinite_loop": ("timeout", None),
    "sigterm_sleep": ("timeout", None),
    "fork_bomb": ("timeout", None),
    "alloc_8gib": ("MemoryError", None),
    "alloc_8gib_at_import": ("memory_limit", None),
    # Under these tests' 1 s calls its CPU time may run out before it meets the 3 GiB cap (timeout, then);
    # test_memory_named.py proves the name at a cap it meets first.
    "alloc_12gib_steps": (None, None),
    "garbage_at_import": ("protocol_error", None),
    "huge_frame_in_call": ("protocol_error", None),
    "tensor_subclass": ("WrongReturnType", None),
    "rigged_eq": ("WrongReturnType", None),
    "read_reference": ("no reference to copy", None),
    "monkeypatch_torch": (None, ZEROS),
    "results_json": (None, V_V),
    "read_secret": (None, V_V),
    "gc_walk": (None, V_V),
    "network": (None, V_V),
    "symlinks": (None, V_V),
    "kill_parent": ("REFUSED", V_V),
    "print_200mb": ("[output truncated]", "print_200mb"),
    "lingering_thread": (None, "lingering_thread"),
    "sdpa_side_door": ("forbidden_api", None),
    "forged_frames": ("protocol_error", None),
    "forged_replies": ("protocol_error", None),
    "exec_fresh_python": ("PermissionError", None),
    "exec_every_door": ("native code is refused", None),  # its ctypes is refused at import; test_syscalls: the filter below
    "lib_flex_reference": ("flex_attention.math_attention", None),
    "lib_quantizable_mha": ("quantizable", None),
    "lib_source_reexec": ("FileNotFoundError", None),
    "lib_unimported_modules": ("ModuleNotFoundError", None),
    "huge_headers": ("protocol_error", None),
    "key_rings_every_kind": (None, V_V),
    "read_installed_rubric": (None, V_V),
    "deep_headers": ("protocol_error", None),
}


@pytest.fixture(scope="module")
def grading(sandbox):
    grade = pytest.importorskip("grader.grade")
    control = grade.grade_file(REPO_ROOT / "reference" / "attention.py", sandbox=sandbox)
    assert control.score == control.max_score > 0
    return grade


@needs_namespaces
@pytest.mark.parametrize("name", sorted(GRADE_GALLERY))
def test_gallery_earns_nothing_through_grading(name, sandbox, grading, tmp_path):
    reason, twin = GRADE_GALLERY[name]
    report = grading.grade_file(gallery(name), sandbox=sandbox, secret="gallery-secret")
    assert report.runtime.isolation == sandbox.isolation
    if reason is not None:
        assert reason in report.model_dump_json(), f"{name}: the report should name {reason!r}"
    if twin is None:
        assert report.score == 0, f"{name} earned {report.score}"
    else:
        honest = tmp_path / "honest.py"
        honest.write_text(_function_only(twin) if twin in GRADE_GALLERY else twin)
        baseline = grading.grade_file(honest, sandbox=sandbox, secret="gallery-secret")
        assert report.score <= baseline.score, f"{name} outscored its honest twin"
        if name == "print_200mb":
            assert report.score == baseline.score  # chatty, but graded normally
    after = grading.grade_file(REPO_ROOT / "reference" / "attention.py", sandbox=sandbox)
    assert after.score == after.max_score, f"the submission after {name} was not graded normally"


def test_killing_the_server_is_survived(sandbox, open_sandbox):
    if sandbox.isolation == "namespaces+uid":
        res = sandbox.run(gallery("kill_parent"), attention_calls(1))
        assert "REFUSED: no parent in sight" in res.output and res.replies["c0"].meta["ok"] is True
    # The control: unisolated (root here), the kill lands, and the sandbox recovers.
    old = open_sandbox.zygote_pid
    res = open_sandbox.run(gallery("kill_parent"), attention_calls(2))
    assert res.failure.kind == "process_exit" and "server died" in res.failure.message
    assert _failure_kinds(res) <= {"process_exit"}  # replies that beat the kill are graded as data
    assert open_sandbox.zygote_pid != old
    assert_healthy(open_sandbox)


def test_cpu_rlimit_names_a_timeout(capsys):
    # A call budget longer than the CPU rlimit: RLIMIT_CPU (SIGXCPU) must end it first.
    limits = Limits(call_s=6.0, load_s=3.0, submission_s=10.0, cpu_s=1)
    with Sandbox(limits=limits, isolate=False) as sb:
        res = sb.run(gallery("infinite_loop"), attention_calls(1))
    failure = res.failures["c0"]
    # Named by the kernel's CPU limit, not by a wall clock: how busy the machine is changes nothing.
    assert failure.kind == "timeout" and "CPU time limit" in failure.message
    # Unisolated, the one-line warning says what is not enforced.
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rlimits-only" in err[0] and "can read every file" in err[0]
