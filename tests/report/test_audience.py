"""Feedback to hand back: a student's view follows each check's visibility; an instructor's marks it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.report.formats import REPORT_FORMATS
from grader.report.html import render_html
from grader.report.markdown import render_markdown
from grader.report.models import CheckReport, Report, Runtime, Visuals
from grader.report.view import for_audience

ROOT = Path(__file__).resolve().parents[2]


def _check(cid: str, visibility: str, score: float, max_score: float, status: str = "passed", feedback: str = "") -> CheckReport:
    return CheckReport(id=cid, title=cid.replace("_", " ").title(), group="G", status=status, score=score,
                       max_score=max_score, visibility=visibility, feedback=feedback or f"{cid} feedback",
                       expected=f"{cid} expected", observed=f"{cid} observed")


def report() -> Report:
    checks = [
        _check("mask_structure", "visible", 12, 12),
        _check("single_head_gradients", "visible", 0, 4, "skipped",
               "Skipped: this check needs \u201cRandom Probes\u201d (random_probes) to pass first."),
        _check("random_probes", "hidden", 0, 10, "failed", "SECRET-PROBE-TEXT"),
        _check("sdpa_parity", "after_due_date", 4, 4),
        _check("shift_invariance", "after_published", 0, 6, "failed"),
    ]
    from grader.report.models import Heatmap

    return Report(submission="s.py", score=16, max_score=36, checks=checks,
                  runtime=Runtime(isolation="namespaces+uid", wall_s=0.1),
                  visuals=Visuals(random_probe=Heatmap(title="Random probe", student=[[1.0]], expected=[[1.0]])))


def test_student_view_before_release_shows_only_visible_checks_and_their_points():
    view, held = for_audience(report(), "student")
    assert [c.id for c in view.checks] == ["mask_structure", "single_head_gradients"] and held == 3
    assert (view.score, view.max_score) == (12, 16)
    assert view.visuals.random_probe is None  # a hidden probe's picture is not shown
    assert "random_probes" not in view.model_dump_json() and "Random Probes" not in view.model_dump_json()
    assert "a hidden check" in view.checks[1].feedback
    for fmt in REPORT_FORMATS.values():  # every format the registry declares
        text = fmt.render(report(), audience="student")
        assert "SECRET-PROBE-TEXT" not in text and "random_probes" not in text and "Sdpa Parity" not in text
        assert "2 further check(s) will be shown when results are released; 1 hidden check(s) are never shown." in text
        assert "12 / 16" in text


def test_published_student_view_adds_after_due_date_and_after_published_and_the_grade():
    view, held = for_audience(report(), "student", published=True)
    assert [c.id for c in view.checks] == ["mask_structure", "single_head_gradients", "sdpa_parity", "shift_invariance"]
    assert held == 1 and (view.score, view.max_score) == (16, 36)  # the grade, hidden points included
    md = render_markdown(report(), audience="student", published=True)
    assert "Sdpa Parity" in md and "SECRET-PROBE-TEXT" not in md
    assert "1 hidden check(s) count toward this score but are not shown." in md


def test_instructor_view_shows_and_marks_every_check():
    md = render_markdown(report(), audience="instructor")
    assert "| G | Random Probes *(hidden from students)* | FAILED |" in md
    assert "Sdpa Parity *(shown to students after the due date)*" in md
    assert "Shift Invariance *(shown to students once published)*" in md
    assert "Mask Structure |" in md and "Mask Structure *(" not in md
    html = render_html(report(), audience="instructor")
    assert "(hidden from students)" in html and "SECRET-PROBE-TEXT" in html


@pytest.mark.parametrize("audience", ["student", "instructor"])
def test_grade_command_writes_the_chosen_audience_and_a_class_run_writes_feedback(tmp_path, audience):
    sub = tmp_path / "subs"
    sub.mkdir()
    (sub / "alice.py").write_text((ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text())
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(sub), "--out", str(out), "--markdown",
                           str(tmp_path / "md"), "--audience", audience], capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "GRADER_SECRET": "x", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    [md] = (tmp_path / "md").glob("*.md")
    text = md.read_text()
    assert ("Random probes" in text) == (audience == "instructor")
    [feedback] = (out / "feedback").glob("*.md")  # one student view per student, whatever --audience says
    handback = feedback.read_text()
    assert "Random probes" not in handback and "never shown" in handback
    assert "reports/" in (out / "summary.html").read_text() and "## Every student" in (out / "summary.md").read_text()


def test_a_students_copy_of_a_capped_grade_matches_their_own_check(sandbox):
    """Found by a user: the handed-back feedback of a leaking file said 58 / 87 while the student's own
    `check` said 43.5 / 87; the severity band now applies to the checks a student is shown."""
    from grader.grade import grade_file, self_check

    leak = ROOT / "reference" / "mutants" / "softmax_wrong_axis.py"
    graded = grade_file(leak, sandbox=sandbox, secret="audience-test")
    view, held = for_audience(graded, "student")
    own = self_check(leak, sandbox=sandbox)
    assert held and (view.score, view.max_score) == (own.score, own.max_score)
    assert view.score < sum(c.score for c in view.checks)  # the band did cap it
    note = [c.feedback for c in view.checks if "capped at" in c.feedback]
    assert len(note) == 1 and f"capped at {view.score:g} of {view.max_score:g}" in note[0]
    assert f"{view.score:g} / {view.max_score:g}" in render_markdown(graded, audience="student")


def _wrong_scale_graded() -> Report:
    """As a class run reports a wrong scale: every shown check passed, a hidden one failed and set
    the total's band, and the diagnosis names the scale."""
    from grader.report.models import Diagnosis

    checks = [_check("worked_example", "visible", 15, 15), _check("single_head", "visible", 6, 6),
              _check("random_probes", "hidden", 0, 9, "failed", "HIDDEN-TEXT")]
    checks[2] = checks[2].model_copy(update={"ceiling": 0.75})
    return Report(submission="s.py", score=22.5, max_score=30, checks=checks,
                  diagnoses=[Diagnosis(id="wrong_scale", title="Scores scaled wrongly", message="m", section="s")],
                  runtime=Runtime(isolation="namespaces+uid", wall_s=0.1))


def test_a_students_copy_never_passes_its_shown_total_off_as_the_grade():
    """Found by a user: a wrong scale read 'Score: 87 / 87 ... All 15 checks passed. Nicely done' in
    the handed-back copy while the gradebook said 75, and the released copy said 75 without a word
    on the band a hidden check had set."""
    before = render_markdown(_wrong_scale_graded(), audience="student")
    assert "Score:" not in before and "Checks shown here: 21 / 21 (not your grade" in before
    assert "Nicely done" not in before and "checks not shown here found" in before
    released = render_markdown(_wrong_scale_graded(), audience="student", published=True)
    assert "**Score: 22.5 / 30**" in released and "caps the total at 22.5 / 30 (75%)" in released
    assert "HIDDEN-TEXT" not in released and "random_probes" not in released
    assert "Checks shown here" in render_html(_wrong_scale_graded(), audience="student")
