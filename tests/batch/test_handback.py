"""What a class run hands back names students as students know themselves: a student's copy is titled with the
file they handed in, never the instructor's path to the export; the summary lists similar submissions by name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.reports import passing_report

from grader.batch.names import handed_back
from grader.intake.models import Student

ROOT = Path(__file__).resolve().parents[2]


def test_a_students_copy_is_titled_with_their_own_file_name():
    report = passing_report().model_copy(update={"submission": "../export/wilsonamy_1009_5001_attention.py"})
    student = Student(key="canvas:1009", id="1009", name="wilsonamy", platform="canvas",
                      submission="../export/wilsonamy_1009_5001_attention.py", handed_in="attention.py")
    assert handed_back(report, student).submission == "attention.py"
    assert report.submission.startswith("../export/")  # the instructor's copy keeps where it was found
    # A row stored before the student's own name was kept: the file's name, never its folders.
    old = student.model_copy(update={"handed_in": ""})
    assert handed_back(report, old).submission == "wilsonamy_1009_5001_attention.py"
    inside = student.model_copy(update={"submission": "C:\\exports\\week3.zip/smith_7_attention.py", "handed_in": ""})
    assert handed_back(report, inside).submission == "smith_7_attention.py"


def test_a_platforms_folder_is_not_part_of_the_title():
    """Found by a new instructor: a Moodle 4 folder export titled the copy 'Sam Lee_576303_assignsubmission_file/
    attention.py'. The platform's folder for the student is the export's naming; the student's own folders stay."""
    report = passing_report()
    for handed_in, title in [("Sam Lee_576303_assignsubmission_file/attention.py", "attention.py"),
                             ("Sam Lee_576303_assignsubmission_file_/src/attention.py", "src/attention.py"),
                             ("submission_4242/attention.py", "attention.py"),
                             ("week3/attention.py", "week3/attention.py")]:
        student = Student(key="moodle:576303", id="576303", name="Sam Lee", platform="moodle",
                          submission="export/" + handed_in, handed_in=handed_in)
        assert handed_back(report, student).submission == title, handed_in


def test_class_run_hands_back_titles_by_file_and_lists_similar_pairs_by_name(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    code = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()
    (export / "wilsonamy_1009_5001_attention.py").write_text(code)
    (export / "smithjohn_1002_5002_my_attention-1.py").write_text(code)  # a resubmission, same code
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, GRADER_SECRET="handback", NO_COLOR="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", "../export", "--out", "results",
                           "--markdown", "handback", "--audience", "student"],
                          cwd=work, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for folder in (work / "results" / "feedback", work / "handback"):
        titles = sorted(p.read_text().splitlines()[0] for p in folder.glob("*.md"))
        assert titles == ["# Attention check: attention.py", "# Attention check: my\\_attention.py"], titles
    # The instructor's own reports still say where each file was found.
    assert any("../export/" in p.read_text() for p in (work / "results" / "reports").glob("*.json"))
    summary = (work / "results" / "summary.md").read_text()
    similar = summary[summary.index("## Similar submissions"):summary.index("## Every student")]
    assert "smithjohn (1002); wilsonamy (1009): identical" in similar, similar
    assert "canvas:" not in similar
    html = (work / "results" / "summary.html").read_text()
    table = html[html.index('id="similar"'):html.index("Every student")]
    assert "smithjohn (1002); wilsonamy (1009)" in table and "canvas:" not in table
