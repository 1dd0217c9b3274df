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
