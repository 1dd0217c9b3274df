"""Class grading: one broken file never stops the rest, an interrupted run resumes, the class is summarised."""

from __future__ import annotations

import csv
import json
import shutil

from conftest import MUTANTS, REFERENCE, SECRET, mutant_id

from grader.batch import expand, grade_class
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric


def _class(tmp_path):
    folder = tmp_path / "class"
    for i, name in enumerate(("zero_fill_mask", "syntax_error", "zero_fill_mask")):
        student = folder / f"student{i}"
        student.mkdir(parents=True)
        shutil.copy(next(p for p in MUTANTS if mutant_id(p) == name), student / "attention.py")
    (folder / "student9").mkdir()
    shutil.copy(REFERENCE, folder / "student9" / "attention.py")
    return folder


def test_class_run_resumes_and_summarises(tmp_path):
    folder, out = _class(tmp_path), tmp_path / "out"
    rubric = load_rubric(INSTRUCTOR_RUBRIC)
    paths = expand([folder])
    assert [p.parent.name for p in paths] == ["student0", "student1", "student2", "student9"]
    first = grade_class(paths, rubric=rubric, secret=SECRET, out=out)
    assert [r.score == 100 for r in first] == [False, False, False, True]

    summary = json.loads((out / "summary.json").read_text())
    counts = {m["id"]: m["count"] for m in summary["misconceptions"]}
    assert counts == {"zero_fill_mask": 2, "syntax_error": 1}
    rows = list(csv.DictReader((out / "gradebook.csv").open()))
    assert [float(r["score"]) for r in rows] == [r.score for r in first]

    # Change one file, as after an interrupted run with a late resubmission: only it is graded again.
    shutil.copy(REFERENCE, paths[0])
    graded = []
    again = grade_class(paths, rubric=rubric, secret=SECRET, out=out, on_report=graded.append)
    assert [r.submission for r in graded] == [str(paths[0])]
    assert again[0].score == 100 and [r.model_dump() for r in again[1:]] == [r.model_dump() for r in first[1:]]

    # Another secret means other hidden probes: nothing saved may be reused.
    graded.clear()
    grade_class(paths, rubric=rubric, secret="another", out=out, on_report=graded.append)
    assert len(graded) == len(paths)
