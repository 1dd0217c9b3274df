"""Hints follow the code, not the saves: a comment or a blank line is not new code (under --watch every
save is a rerun); a changed line that still fails moves to the next hint."""

from __future__ import annotations

from grader.grade import self_check
from grader.paths import ROOT

BUGGY = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text(encoding="utf-8")


def _hint(sandbox, path, state, text: str) -> str | None:
    path.write_text(text, encoding="utf-8")
    report = self_check(path, sandbox=sandbox, hint_state_path=state, hint_key="hint-progress-test")
    return next(c.hint for c in report.checks if c.id == "mask_structure")


def test_a_comment_does_not_advance_the_hint_and_a_code_change_does(sandbox, tmp_path):
    path, state = tmp_path / "attention.py", tmp_path / "hints.json"
    first = _hint(sandbox, path, state, BUGGY)
    assert first and first.startswith("Hint 1 of")
    assert _hint(sandbox, path, state, BUGGY + "\n# trying something\n\n") == first
    second = _hint(sandbox, path, state, BUGGY + "\nUNUSED = 1\n")  # new code, still the same bug
    assert second and second.startswith("Hint 2 of")
