"""What a student met on an evening walked on 2026-12-02 (a helper who had read only the chapter and the
template's README, one change per run): each finding that was false of the file, fixed test first."""

from __future__ import annotations

from grader.grade import self_check
from grader.paths import ROOT

REFERENCE = (ROOT / "reference" / "attention.py").read_text(encoding="utf-8")


def _check(sandbox, tmp_path, source: str, name: str = "attention.py"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json", hint_key="second-walk")


def test_a_head_whose_output_has_the_wrong_width_is_told_so_not_blamed_for_our_backward(sandbox, tmp_path):
    # The key projection passed as the value: with d_v != d_k the head's output is d_k wide. The gradient
    # probes used to multiply it by a d_v-wide upstream gradient in the child and report the grader's own
    # "size of tensor a (3) must match the size of tensor b (4)" as raised by the student's SingleHead.
    source = REFERENCE.replace("self.key(x), self.value(x))", "self.key(x), self.key(x))")
    assert source != REFERENCE
    report = _check(sandbox, tmp_path, source)
    text = "\n".join(f"{c.id} {c.status} {c.feedback}" for c in report.checks)
    assert "must match the size of tensor" not in text, text
    assert not [c.id for c in report.checks if c.status == "error"], text
    status = {c.id: c.status for c in report.checks}
    assert status["single_head"] == status["single_head_gradients"] == "failed", text
    assert "No gradient reached value" in {c.id: c for c in report.checks}["single_head_gradients"].feedback


MUTANTS = ROOT / "reference" / "mutants"


def _worked_hint(sandbox, tmp_path, mutant: str, step: int = 0) -> str | None:
    source = (MUTANTS / f"{mutant}.py").read_text(encoding="utf-8") + (f"\nSTEP = {step}\n" if step else "")
    report = _check(sandbox, tmp_path, source)
    return {c.id: c for c in report.checks}["worked_example"].hint


def test_the_scores_hint_is_not_the_next_hint_for_a_mask_or_axis_bug_whose_scores_are_right(sandbox, tmp_path):
    # The evening: wrong triangle (its mask hint read), then 0 instead of -inf: the ladder moved on to "Work
    # the last receiving position by hand ... Do your scores for that row match", which they did. For a bug
    # after the scores, the hints the check has for that bug are the ladder; a read one is shown again.
    first = _worked_hint(sandbox, tmp_path, "wrong_mask_direction")
    assert first and "first weight row" in first, first
    for later in ("zero_fill_mask", "softmax_wrong_axis", "mask_after_softmax", "no_mask"):
        hint = _worked_hint(sandbox, tmp_path, later)
        assert hint and "Do your scores" not in hint, (later, hint)
    # The negative control: a wrong scale, whose scores are what differs, still gets the scores hint in its ladder.
    scale = [_worked_hint(sandbox, tmp_path, "missing_scale", step) for step in range(2)]
    assert scale[0] and "square root" in scale[0] and any("Do your scores" in (h or "") for h in scale), scale


def test_zero_queries_does_not_hint_at_averages_a_mask_after_softmax_never_gives(sandbox, tmp_path):
    hints = []
    for n in range(3):  # a changed line each time: the ladder moves on
        source = (MUTANTS / "mask_after_softmax.py").read_text(encoding="utf-8") + f"\nSTEP = {n}\n"
        hints.append({c.id: c for c in _check(sandbox, tmp_path, source).checks}["zero_queries"].hint)
    assert all(h and "average of all three" not in h for h in hints), hints


def _headline(report):
    return report.diagnoses[0] if report.diagnoses else None


def test_a_loop_at_import_and_in_a_call_are_each_told_in_plain_words(sandbox, tmp_path):
    # "A call never returned in time" headlined a loop at the file's top level, and the sentences read
    # "no answer while the call: stopped at ...".
    looping_call = REFERENCE.replace("    _check_shapes(q, k, v)\n", "    _check_shapes(q, k, v)\n    while True:\n        pass\n", 1)
    assert looping_call != REFERENCE
    for source in (REFERENCE + "\nwhile True:\n    pass\n", looping_call):
        report = _check(sandbox, tmp_path, source)
        head = _headline(report)
        assert head.id == "timeout" and "call" not in head.title.lower(), head.title
        assert "while the call" not in head.message and "no answer while" not in head.message, head.message


def test_a_file_that_only_imports_sdpa_is_not_headlined_as_calling_it(sandbox, tmp_path):
    source = "from torch.nn.functional import scaled_dot_product_attention  # to compare in my notebook\n" + REFERENCE
    head = _headline(_check(sandbox, tmp_path, source))
    assert head.id == "forbidden_api" and not head.title.startswith("Calls"), head.title


def test_a_breakpoint_left_in_does_nothing_where_the_file_is_graded(sandbox, tmp_path):
    # It raised BdbQuit (pdb read the closed stdin) and printed 8 kB of "(Pdb)" prompts under the report.
    source = REFERENCE.replace("    _check_shapes(q, k, v)\n", "    _check_shapes(q, k, v)\n    breakpoint()\n", 1)
    report = _check(sandbox, tmp_path, source)
    assert report.score == report.max_score and not report.diagnoses, [(c.id, c.feedback) for c in report.checks if c.score < c.max_score]
    assert "(Pdb)" not in report.runtime.output


def test_a_breakpoint_does_nothing_in_a_server_started_as_a_fresh_interpreter(tmp_path):
    # The suite's shared sandbox may be a server started as `python -I`, which ignores PYTHONBREAKPOINT:
    # the breakpoint still ran pdb there (found by the full suite). A process with no seed starts one so.
    import subprocess
    import sys

    path = tmp_path / "attention.py"
    path.write_text(REFERENCE.replace("    _check_shapes(q, k, v)\n", "    _check_shapes(q, k, v)\n    breakpoint()\n", 1))
    code = ("import sys; from pathlib import Path; from grader.grade import self_check; from grader.sandbox import Sandbox\n"
            "with Sandbox() as sb:\n"
            f"    r = self_check(Path({str(path)!r}), sandbox=sb, hint_state_path=Path({str(tmp_path / 'h.json')!r}), "
            "hint_key='bp')\n"
            "print(r.score == r.max_score, '(Pdb)' in r.runtime.output)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.split()[-2:] == ["True", "False"], (proc.stdout[-500:], proc.stderr[-2000:])


def test_a_file_that_cannot_load_says_why_once_not_once_per_check(sandbox, tmp_path):
    # A syntax error: the diagnosis said it, then three detail blocks and a line of twelve more repeated it,
    # each with a reread pointer to an unrelated section ("Part 3: prove the mask has teeth").
    import io

    from rich.console import Console

    from grader.report.terminal import render_terminal

    report = _check(sandbox, tmp_path, REFERENCE.replace("out = weights @ v", "out = weights @ v)"))
    buffer = io.StringIO()
    render_terminal(report, console=Console(file=buffer, no_color=True, width=120))
    text = buffer.getvalue()
    assert "does not compile" in text.split("\n\n")[1] or "compile" in text, text
    assert text.count("unmatched ')'") <= 2, text  # the diagnosis, and the one line that says no check ran
    assert "prove the mask has teeth" not in text, text
    assert "None of the 15 checks could run" in text, text
