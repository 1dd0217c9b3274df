"""Item 5 of issue 19: the self-check is the grade's visible half. A check gives the same verdict in
both views, and where the self-check cannot see a band the grade will set (a check not shown to
students caps this kind of bug), it says so in one line without naming that check."""

from __future__ import annotations

import io

from rich.console import Console

from grader.diagnosis.catalogue import REFERENCE
from grader.grade import grade_file, self_check
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal
from grader.report.view import for_audience

MASK_AT_8 = ("allowed = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()",
             "allowed = torch.ones(8, 8, dtype=torch.bool, device=q.device).tril()[:t, :t]")
WIDTH_OF_V = ("/ math.sqrt(q.shape[-1])", "/ math.sqrt(v.shape[-1])")


def _file(tmp_path, name, edit):
    source = REFERENCE.read_text()
    assert edit[0] in source
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(edit[0], edit[1], 1))
    return path


def _terminal(report, audience="student") -> str:
    buf = io.StringIO()
    render_terminal(report, console=Console(file=buf, width=200), audience=audience)
    return buf.getvalue()


def test_a_band_the_self_check_cannot_see_is_told_in_one_line(sandbox, tmp_path):
    """Found by a student: a mask built at 8 and sliced scored 86.71 / 87 in `check` and 75 / 100 in
    `grade` (the crash band, set by a check students do not see)."""
    path = _file(tmp_path, "mask8", MASK_AT_8)
    mine = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    assert graded.score == 0.75 * graded.max_score  # the grade's band, set by a hidden check
    for text in (_terminal(mine), render_markdown(mine, audience="student")):
        lines = [line for line in text.splitlines() if "not shown here" in line and "75%" in line]
        assert len(lines) == 1, text
        assert "random" not in lines[0].lower() and "hidden probe" not in lines[0].lower()
    # The instructor's copy of the grade sees the band itself, and no such line.
    assert not [line for line in _terminal(graded, "instructor").splitlines() if "not shown here" in line]


def test_a_correct_file_is_told_of_no_band(sandbox, tmp_path):
    mine = self_check(REFERENCE, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    assert "not shown here cap" not in _terminal(mine)


def test_the_head_check_gives_the_same_verdict_in_both_views(sandbox, tmp_path):
    """Found by a student: the instructor view passed single_head 'like the reference' for a head whose
    output differs (its causal_attention's difference, counted there), the student view failed it."""
    path = _file(tmp_path, "width", WIDTH_OF_V)
    mine = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    student_copy, _ = for_audience(graded, "student")
    for report in (mine, graded, student_copy):
        head = next(c for c in report.checks if c.id == "single_head")
        assert head.status == mine.checks[[c.id for c in mine.checks].index("single_head")].status
        assert "like the reference" not in head.feedback
        assert "difference comes from causal_attention" in head.feedback, head.feedback
    assert [line for line in _terminal(mine).splitlines() if "not shown here" in line and "75%" in line]


def test_a_crash_in_singlehead_is_not_told_a_band_only_causal_attention_can_set(sandbox, tmp_path):
    """Found on a walk: SingleHead without d_v's default crashed where d_v was left out; the self-check said
    the grade may be capped at 75% (the hidden checks' crash band), but those checks call only
    causal_attention and the grade was 97.38 / 100, no band."""
    path = _file(tmp_path, "dv", ("d_v = d_k if d_v is None else d_v", "pass"))
    mine = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    assert any(c.status == "error" and c.id == "single_head" for c in mine.checks)
    assert graded.score > 0.75 * graded.max_score  # no band in the grade
    assert "not shown here cap" not in _terminal(mine)
