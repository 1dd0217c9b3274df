"""Done when (issue 20, item 4): an override survives a rerun and a rubric change, is shown (with its reason) in the
gradebook and the student's feedback, is reported and not applied once the student's submission changes, and the
change report lists exactly the students who moved."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.batch.overrides import record_override
from grader.batch.run import grade_class
from grader.cli import main
from grader.intake.collect import InputError, collect
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric
from grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
SECRET = "override-secret"
SOURCES = {"1001": (ROOT / "reference" / "attention.py").read_text(),
           "1002": (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text(),
           "1003": ""}


@pytest.fixture(scope="module")
def sandboxes(sandbox_for):
    return [sandbox_for(Limits())]


def _rows(out: Path) -> dict[str, dict]:
    with open(out / "gradebook.csv", newline="") as f:
        return {r["ID"]: r for r in csv.DictReader(f)}


def _feedback(out: Path, sid: str) -> str:
    return next(p.read_text() for p in (out / "feedback").glob(f"s{sid}-*.md"))


def test_an_override_survives_reruns_and_a_rubric_change_until_the_file_changes(tmp_path, sandboxes, capsys):
    export = tmp_path / "export"
    export.mkdir()
    for sid, source in SOURCES.items():
        (export / f"s{sid}_{sid}_{sid}0_attention.py").write_text(source)
    rubric, out = load_rubric(INSTRUCTOR_RUBRIC), tmp_path / "out"

    def run(rubric=rubric):
        return grade_class(collect([str(export)]), rubric=rubric, secret=SECRET, out=out, sandboxes=sandboxes)

    first = run()
    assert first.changes is None and not (out / "changes.csv").exists()  # nothing to compare with yet
    assert _rows(out)["1002"]["check:zero_queries"] == "0" and _rows(out)["1002"]["Score"] == "48"

    # The command line: a check's points, the outputs rewritten at once.
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "grader", "override", str(out), "1002", "--check", "zero_queries",
                           "--points", "5", "--reason", "Zero queries are excused this term"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    row = _rows(out)["1002"]
    assert row["check:zero_queries"] == "5" and row["Score"] == "53" and "Zero queries are excused" in row["Notes"]
    assert "Zero queries are excused this term" in _feedback(out, "1002")
    # The rewrite reads the store, which keeps no sources: it says similar submissions are not listed, never
    # "None." (found by a new instructor: an override emptied the list); the next `grade` run lists them again.
    assert "Not listed here" in (out / "summary.md").read_text()
    assert main(["override", str(out), "1002", "--score", "50", "--points", "3", "--reason", "which?"]) == 2
    assert "--check ID takes --points" in capsys.readouterr().err
    record_override(out, "1003", score=50, reason="Renamed function; the math is right")
    with pytest.raises(InputError, match="between 0 and 5"):
        record_override(out, "1002", check="zero_queries", points=9, reason="too many")
    with pytest.raises(InputError, match="no student"):
        record_override(out, "9999", score=1, reason="nobody")

    again = run()
    assert "Not listed here" not in (out / "summary.md").read_text()
    assert again.changes == [] and (out / "changes.csv").read_text().count("\n") == 1  # only the header
    rows = _rows(out)
    assert (rows["1002"]["Score"], rows["1003"]["Score"]) == ("53", "50")
    assert "Renamed function; the math is right" in _feedback(out, "1003")
    assert "Total set to 50" not in _feedback(out, "1003")  # not published: a student's copy shows no total

    # The rubric changes: only the correct file moves (+5); both overrides still hold.
    worked = rubric.checks[0]  # worked_example, which only 1001 passes
    assert worked.id == "worked_example"
    heavier = rubric.model_copy(update={"checks": [worked.model_copy(update={"points": worked.points + 5}),
                                                   *rubric.checks[1:]]})
    regraded = run(heavier)
    assert [(m.student.student.id, m.before, m.after, m.why) for m in regraded.changes] == [
        ("1001", 100.0, 105.0, "the rubric or grader changed")]
    with open(out / "changes.csv", newline="") as f:
        assert [(r["ID"], r["Change"]) for r in csv.DictReader(f)] == [("1001", "+5")]
    rows = _rows(out)
    assert (rows["1002"]["Score"], rows["1003"]["Score"]) == ("53", "50")

    # A new file from 1002: the override made for the old one is reported, not kept.
    (export / "s1002_1002_10020_attention.py").write_text(SOURCES["1002"] + "\n# resubmitted\n")
    resubmitted = run(heavier)
    assert len(resubmitted.stale_overrides) == 1 and "not applied" in resubmitted.stale_overrides[0]
    row = _rows(out)["1002"]
    assert row["Score"] == "48" and row["check:zero_queries"] == "0" and "not applied" in row["Notes"]
    assert [(m.student.student.id, m.why) for m in resubmitted.changes] == [("1002", "a new submission")]


def test_a_students_copy_never_names_a_hidden_check_or_an_unreleased_total():
    from support.reports import failing_report

    from grader.batch.models import Override, StudentResult
    from grader.batch.overrides import apply_overrides
    from grader.intake.models import Student
    from grader.report.markdown import render_markdown

    student = Student(key="canvas:7", id="7", name="amy", platform="canvas", source_sha256="abc")
    r = StudentResult(student=student, status="graded", report=failing_report())
    assert apply_overrides([r], [Override(student="canvas:7", source_sha256="abc", check="hidden_probe", points=1,
                                          reason="Probe 3 was unfair"),
                                 Override(student="canvas:7", source_sha256="abc", points=9, reason="Late pass")]) == []
    assert r.report.score == 9 and [a.target for a in r.report.adjustments] == ["check", "total"]
    before = render_markdown(r.report, audience="student", published=False)
    assert "Probe 3 was unfair" in before and "Late pass" in before
    assert "hidden_probe" not in before and "Hidden probe" not in before and "Total set to" not in before
    after = render_markdown(r.report, audience="student", published=True)
    assert "Total set to 9" in after and "Hidden probe" not in after
    assert "Hidden probe" in render_markdown(r.report, audience="instructor")  # the instructor sees what was set
    from grader.report.html import render_fragment

    html = render_fragment(r.report, audience="student", published=True)
    assert "Adjusted by your instructor" in html and "Probe 3 was unfair" in html and "Hidden probe" not in html
