"""Item 3 of issue 19: a hint is chosen by what the check found and what the headline diagnosis
named, and it is spent only when the student was shown it."""

from __future__ import annotations

from grader.grade import self_check
from grader.report.terminal import DETAILS
from grader.report.view import costliest_first

KEY = "evening-hints-test"


def _grade(sandbox, path, state, **kw):
    return self_check(path, sandbox=sandbox, hint_state_path=state, hint_key=KEY, **kw)


def _hints(report) -> dict[str, str]:
    return {c.id: c.hint for c in report.checks if c.hint}


def test_a_hint_not_shown_is_not_spent(sandbox, evening, tmp_path):
    """Found by a student: the terminal spelled out three failing checks; the others' hints were used
    up unseen, so shape validation first appeared as 'Hint 2 of 2'."""
    state, path = tmp_path / "hints.json", evening("zero_fill_mask")
    source = path.read_text()
    first = _grade(sandbox, path, state, spelled_out=DETAILS["student"])
    unseen = [c for c in costliest_first(first.checks)[DETAILS["student"]:] if c.status == "failed"]
    assert unseen, "the test needs a failing check beyond the screenful"
    assert all(c.hint is None for c in unseen)  # not shown, so not given
    for n in range(3):  # three more evenings' edits, the same bug, read in the terminal only
        path.write_text(source + f"\nEDIT_{n} = {n}\n")
        _grade(sandbox, path, state, spelled_out=DETAILS["student"])
    path.write_text(source + "\nEDIT_LAST = 1\n")
    everything = _hints(_grade(sandbox, path, state))  # now read in full (--html, --markdown, a notebook)
    for c in unseen:
        assert everything[c.id].startswith(("Hint 1 of", "Hint: ")), (c.id, everything[c.id])


def test_a_shown_hint_still_advances_with_changed_code(sandbox, evening, tmp_path):
    state, path = tmp_path / "hints.json", evening("zero_fill_mask")
    source = path.read_text()
    full = costliest_first(_grade(sandbox, path, tmp_path / "elsewhere.json").checks)  # every hint, another state
    n, shown = next((n, c) for n, c in enumerate(full, 1) if c.hint and c.hint.startswith("Hint 1 of"))
    first = next(c for c in _grade(sandbox, path, state, spelled_out=n).checks if c.id == shown.id)
    assert first.hint == shown.hint
    path.write_text(source + "\nEDIT = 1\n")
    again = next(c for c in _grade(sandbox, path, state, spelled_out=n).checks if c.id == shown.id)
    assert again.hint.startswith("Hint 2 of")


def test_the_zero_fill_is_hinted_about_its_own_bug(sandbox, evening, tmp_path):
    """Found by a student: the zero fill (with torch.softmax) was asked 'What is exp(1000)?' and
    'What do you divide q·k by?'."""
    state, path = tmp_path / "hints.json", evening("zero_fill_mask")
    source = path.read_text()
    said = []
    for n in range(4):
        path.write_text(source + f"\nEDIT_{n} = {n}\n")
        said += _hints(_grade(sandbox, path, state)).values()
    text = "\n".join(said)
    assert "exp(1000)" not in text and "divide q·k by" not in text, text
    assert "exp(0) = 1" in text  # its own bug's hint is among them


def test_triu_with_a_right_fill_is_not_hinted_about_zero_scores_or_the_axis(sandbox, evening, tmp_path):
    """Found by a student: triu with a correct -inf fill was told exp(0) = 1 and asked about the softmax axis."""
    state = tmp_path / "hints.json"
    path = evening("zero_fill_mask")
    _grade(sandbox, path, state)  # the evening's earlier bug, same work, same hint state
    triu = evening("wrong_mask_direction")
    source = triu.read_text()
    said = []
    for n in range(4):
        path.write_text(source + f"\nEDIT_{n} = {n}\n")
        report = _grade(sandbox, path, state)
        assert report.diagnoses[0].id == "wrong_mask_direction"
        said += _hints(report).values()
    text = "\n".join(said)
    assert "exp(0)" not in text and "axis" not in text, text


def test_a_hint_named_for_a_bug_waits_for_that_headline():
    from grader.rubric import load_self_check

    mask = load_self_check().check("mask_structure")
    assert any("exp(0) = 1" in h for h in mask.hints_for("above", "zero_fill_mask"))
    assert not any("exp(0) = 1" in h for h in mask.hints_for("above", "wrong_mask_direction"))
    assert not any("exp(0) = 1" in h for h in mask.hints_for("above", None))


def test_a_hint_names_only_declared_misconceptions_and_says_what_it_is_for():
    import pydantic

    from grader.rubric.model import Hint

    assert Hint(text="x", named=["zero_fill_mask"]).named == ["zero_fill_mask"]
    for bad in ({"text": "x", "named": ["zero_fill"]}, {"text": "x"}):
        try:
            Hint(**bad)
        except pydantic.ValidationError:
            continue
        raise AssertionError(f"{bad} was accepted")


SCORES_HINT = "its scores are [0, ln 2, ln 4]"


def test_a_bug_after_the_scores_is_first_hinted_about_its_own_step(sandbox, evening, tmp_path):
    """Found on a walk: a mask that hides the diagonal was first asked whether its scores for the last row
    match, which they do; the hint named for the headline's bug speaks first, and since 2026-12-02 the general
    one is not on its ladder at all (a second walk met it as the next hint: tests/evening/test_second_walk.py)."""
    for bug in ("diagonal_excluded", "softmax_wrong_axis", "mask_after_softmax", "future_offset"):
        report = _grade(sandbox, evening(bug), tmp_path / f"{bug}.json")
        assert report.diagnoses[0].id == bug
        worked = next(c for c in report.checks if c.id == "worked_example")
        assert worked.hint and worked.hint.startswith(("Hint 1 of", "Hint: ")), (bug, worked.hint)
        assert SCORES_HINT not in worked.hint, (bug, worked.hint)


def test_a_wrong_scale_is_still_asked_about_its_scores():
    """The control: the scale's own hint comes first, the scores hint is still on its ladder."""
    from grader.rubric import load_self_check

    worked = load_self_check().check("worked_example")
    hints = worked.hints_for("scale", "missing_scale")
    assert "divide q·k by" in hints[0] and any(SCORES_HINT in h for h in hints[1:])
    assert SCORES_HINT in worked.hints_for("weights", None)[0]  # no diagnosis: the general hint first


def test_a_new_bug_starts_with_its_own_hint_not_the_ladder_left_by_the_last(sandbox, evening, tmp_path):
    """Found replaying the journey: after the softmax-axis bug had shown its hint, the flipped triangle (the next
    change) showed "Hint 2 of 2", the scores hint, and its own mask hint was never shown: the ladder counted
    hints shown, not which. A hint already read is not shown again while one about this bug is unread; the
    scores hint is no longer on a mask bug's ladder, so its own hint stays."""
    state = tmp_path / "hints.json"
    axis = _grade(sandbox, evening("softmax_wrong_axis"), state)
    assert "which axis" in next(c for c in axis.checks if c.id == "worked_example").hint
    path = evening("wrong_mask_direction")
    flipped = _grade(sandbox, path, state)
    assert flipped.diagnoses[0].id == "wrong_mask_direction"
    worked = next(c for c in flipped.checks if c.id == "worked_example").hint
    assert "Which sources does your mask leave open" in worked and worked.startswith("Hint: "), worked
    path.write_text(path.read_text() + "\nEDIT = 1\n")  # the next change: the next unread hint, then it stays
    again = next(c for c in _grade(sandbox, path, state).checks if c.id == "worked_example").hint
    assert again == worked and SCORES_HINT not in again, again
