"""Issue 25, done when: a class run with one file of each intake attack ends with a gradebook, one row
per student, the honest student at full marks and every attacker's row saying what happened to it."""

from __future__ import annotations

import csv

from support.intake_attacks import ATTACKS, write_class

from grader.batch.run import grade_class
from grader.intake.collect import collect
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric
from grader.sandbox import Limits


def test_a_class_of_intake_attacks_ends_with_a_gradebook(tmp_path, sandbox_for):
    write_class(tmp_path / "class")
    intake = collect([tmp_path / "class"])
    rubric = load_rubric(INSTRUCTOR_RUBRIC)
    sandboxes = [sandbox_for(Limits()), sandbox_for(Limits(), copy=1)]
    run = grade_class(intake, rubric=rubric, secret="s", out=tmp_path / "out", sandboxes=sandboxes)
    with open(tmp_path / "out" / "gradebook.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    # Every file but the export's metadata is a student; the honest one and the attackers, once each.
    assert len(rows) == len(run.results) == len(ATTACKS)
    honest = next(r for r in run.results if r.student.id == "200")
    assert honest.report is not None and honest.report.score == honest.report.max_score
    assert run.summary.grader_errors == 0
    for r in run.results:
        assert r.status in ("graded", "ungradable"), (r.student.id, r.status, r.error)  # handed in: never "no submission"
        if r.status == "ungradable":
            assert any(f.kind == "ungradable" and f.detail.startswith("handed in, but nothing could be graded")
                       for f in r.student.flags), r.student.flags
    assert (tmp_path / "out" / "skipped.csv").read_text().count("\n") > 1
