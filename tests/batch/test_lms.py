"""Done when (issue 20, item 5): the Canvas import file has only the columns Canvas's importer reads as identity
and one assignment, the Moodle worksheet round-trips (same columns, rows and order, grades and comments filled),
and each feedback zip is named as the platform's bulk upload matches files to students. The rules checked here
are the importers' own (canvas-lms gradebook_importer.rb and assignment.rb; Moodle's assignfeedback_offline
importgradeslib.php and assignfeedback_file importziplib.php), restated as the tests' reading of a file."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import zipfile

import pytest
from support.reports import failing_report, passing_report

from grader.batch.lms import LAYOUTS, lms_export, write_lms
from grader.batch.models import StudentResult
from grader.intake.collect import InputError
from grader.intake.models import Student

WORKSHEET = (
    "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
    "Last modified (submission),Last modified (grade),Feedback comments\n"
    "Participant 576317,Wei Li,wei.li@example.org,Submitted for grading,,100.00,Yes,"
    "\"Monday, 30 November 2026, 9:12 PM\",-,\n"
    "Participant 576318,Wei Li,wei.li2@example.org,Submitted for grading,,100.00,Yes,"
    "\"Monday, 30 November 2026, 9:40 PM\",\"Tuesday, 1 December 2026, 8:00 AM\",old comment\n"
    "Participant 576319,Zoë Brown,zoe@example.org,No submission,,100.00,Yes,-,-,\n"
)


def _result(key, sid, name, platform, submission="", status="graded", report=None, **kw) -> StudentResult:
    student = Student(key=key, id=sid, name=name, platform=platform, submission=submission,
                      handed_in="attention.py" if submission else "", **kw)
    return StudentResult(student=student, status=status, report=report if status == "graded" else None,
                         report_name=f"{name.replace(' ', '_')}-{sid}")


def canvas_class() -> list[StudentResult]:
    return [
        _result("canvas:1001", "1001", "García, Ana", "canvas", "export/garciaana_1001_5001_attention.py",
                report=passing_report(), section="A"),
        _result("canvas:1002", "1002", "=cmd", "canvas", "export/cmd_1002_5002_attention.py", report=failing_report()),
        _result("canvas:anon_7Gq2k", "anon_7Gq2k", "anon_7Gq2k", "canvas", "export/anon_7Gq2k_5003_attention.py",
                report=passing_report()),
        _result("canvas:1004", "1004", "Nobody", "canvas", status="no_submission"),
        _result("canvas:1005", "1005", "Broken", "canvas", "export/broken_1005_5005_attention.py",
                status="grader_error"),
    ]


def moodle_class() -> list[StudentResult]:
    return [
        _result("moodle:576317", "576317", "Wei Li", "moodle", "export/Wei Li_576317_assignsubmission_file_/attention.py",
                report=passing_report()),
        _result("moodle:576318", "576318", "Wei_Li", "moodle", "export/Wei_Li_576318_assignsubmission_file_/a.py",
                report=failing_report()),
        _result("moodle:576319", "576319", "Zoë Brown", "moodle", status="no_submission"),
    ]


def _write(tmp_path, results, export):
    paths, left_out = write_lms(tmp_path, results, export, published=False, feedback=lambda r: f"feedback {r.report_name}")
    return paths, left_out


def test_canvas_import_holds_identity_and_one_assignment_and_nothing_else(tmp_path):
    roster = tmp_path / "canvas-gradebook.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Attention (123),Current Score,Final Grade\n"
                      "    Points Possible,,,,,100,,\n")
    export = lms_export("canvas", roster=roster, bom=True)
    assert export.assignment == "Attention (123)"  # taken whole, so Canvas matches the assignment by its id
    (grades, feedback), left_out = _write(tmp_path, canvas_class(), export)
    assert grades.read_bytes().startswith("\ufeff".encode())  # Excel reads UTF-8 only after a BOM
    rows = list(csv.reader(io.StringIO(grades.read_text(encoding="utf-8-sig"))))
    header = rows[0]
    # gradebook_importer.rb: column 0 contains "Student", column 1 "ID", the identity columns end with Section;
    # every later column is an assignment.
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (123)"]
    assert rows[1:] == [["García, Ana", "1001", "", "", "A", "10.5"], ["'=cmd", "1002", "", "", "", "2.5"]]
    # No grade for a row that was not graded: a blank would clear what Canvas holds. The anonymous row has no id.
    assert len(left_out) == 2 and all("anon_7Gq2k" in line for line in left_out)  # no grade, no feedback file
    # assignment.rb: the first two all-digit parts of a re-uploaded file's name are the user and the file ids.
    names = zipfile.ZipFile(feedback).namelist()
    assert [[p for p in n.split("_") if p.isdigit()][:2] for n in names] == [["1001", "5001"], ["1002", "5002"]]
    assert all(zipfile.ZipFile(feedback).getinfo(n).date_time == (2020, 1, 1, 0, 0, 0) for n in names)


def test_canvas_assignment_title_is_asked_for_when_the_roster_cannot_tell(tmp_path):
    with pytest.raises(InputError, match="--lms canvas needs --assignment"):
        lms_export("canvas")
    roster = tmp_path / "two.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Attention (123),Quiz 1 (124)\n")
    with pytest.raises(InputError, match="Attention \\(123\\), Quiz 1 \\(124\\)"):
        lms_export("canvas", roster=roster)
    assert lms_export("canvas", assignment="Quiz 1", roster=roster).assignment == "Quiz 1 (124)"
    assert lms_export("canvas", assignment="Week 3").assignment == "Week 3"  # a new column: Canvas creates it


def test_moodle_worksheet_round_trips_with_grades_and_comments(tmp_path):
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(WORKSHEET)
    export = lms_export("moodle", roster=worksheet)
    (grades, feedback), left_out = _write(tmp_path, moodle_class(), export)
    before = list(csv.reader(io.StringIO(WORKSHEET)))
    after = list(csv.reader(io.StringIO(grades.read_text())))
    assert after[0] == before[0] and len(after) == len(before) and not left_out
    col = {name: i for i, name in enumerate(after[0])}
    # importgradeslib.php: the id is the Identifier without "Participant "; Grade and Last modified (grade) are read.
    got = {row[col["Identifier"]].removeprefix("Participant "): row for row in after[1:]}
    assert got["576317"][col["Grade"]] == "10.5" and got["576318"][col["Grade"]] == "2.5"
    assert got["576319"] == before[3]  # no submission: the row as Moodle wrote it, so the import skips it
    for pid, row in got.items():  # the staleness guard reads Last modified (grade): kept as downloaded
        assert row[col["Last modified (grade)"]] == before[[r[0] for r in before].index(f"Participant {pid}")][8]
    comment = got["576318"][col["Feedback comments"]]
    assert comment and "secret" not in comment and "Hidden probe" not in comment  # the student view
    # importziplib.php: each path part split on "_" into at most 5 pieces; the 2nd is the participant id, the
    # 3rd and 4th the plugin.
    parts = [n.split("_", 4) for n in zipfile.ZipFile(feedback).namelist()]
    assert [(p[1], p[2], p[3], p[4]) for p in parts] == [("576317", "assignfeedback", "file", "feedback.md"),
                                                         ("576318", "assignfeedback", "file", "feedback.md")]


def test_moodle_worksheet_without_a_download_has_the_columns_moodle_requires(tmp_path):
    export = lms_export("moodle")
    (grades, _), _ = _write(tmp_path, moodle_class(), export)
    rows = list(csv.DictReader(io.StringIO(grades.read_text())))
    assert {"Identifier", "Grade", "Last modified (grade)", "Feedback comments"} <= set(rows[0])
    assert [(r["Identifier"], r["Grade"]) for r in rows] == [("Participant 576317", "10.5"), ("Participant 576318", "2.5")]
    not_a_worksheet = tmp_path / "half.csv"
    not_a_worksheet.write_text("Identifier,Full name\nParticipant 1,A\n")
    with pytest.raises(InputError, match="Last modified"):
        lms_export("moodle", roster=not_a_worksheet)


def test_every_layout_names_its_files_and_feedback():
    assert set(LAYOUTS) == {"canvas", "moodle"}
    for layout in LAYOUTS.values():
        assert layout.grades_file.endswith(".csv") and layout.feedback_zip.endswith(".zip")


def test_grade_refuses_lms_canvas_without_a_title_before_grading(tmp_path):
    (tmp_path / "a_1_2_attention.py").write_text("")
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(tmp_path), "--out", str(tmp_path / "out"),
                           "--lms", "canvas"], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, GRADER_SECRET="x"))
    assert done.returncode == 2 and "--lms canvas needs --assignment" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["interface", "ambiguous_identity", "identity_conflict", "not_on_roster"])
def test_a_row_waiting_for_a_human_is_held_out_of_the_import_files(tmp_path, kind):
    """Found by a new instructor: canvas-import.csv gave 0 to a student whose math passes behind a renamed
    function while review.csv said to read it first, and 100 to a student not on the roster. Such rows are
    held out of the grades file and the feedback zip, and named, until a person has looked."""
    results = canvas_class()
    results[0].student.flag(kind, "evidence")
    paths, left_out = _write(tmp_path, results, lms_export("canvas", assignment="Attention (12345)"))
    rows = list(csv.reader(io.StringIO(paths[0].read_text(encoding="utf-8"))))
    assert [r[1] for r in rows[1:]] == ["1002"]  # García held back; the other graded row stays
    assert any(line.startswith("García, Ana (1001): held out of canvas-import.csv") and "review.csv" in line
               for line in left_out), left_out
    assert not any("1001" in n for n in zipfile.ZipFile(paths[1]).namelist())
    results[0].student.flags.clear()  # the control: unflagged, she is imported
    paths, _ = _write(tmp_path, results, lms_export("canvas", assignment="Attention (12345)"))
    assert [r[1] for r in list(csv.reader(io.StringIO(paths[0].read_text(encoding="utf-8"))))[1:]] == ["1001", "1002"]


def test_the_moodle_comment_says_an_override_beside_the_grade_it_set(tmp_path):
    # Found by an instructor's trial: a total set to 60 went into Grade beside "Checks shown here: 43.5 / 87"
    # and nothing about the adjustment, which only the feedback file told.
    from grader.report.models import Adjustment

    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(WORKSHEET)
    results = moodle_class()
    rep = results[1].report
    results[1].report = rep.model_copy(update={"score": 6.0, "adjustments": [
        Adjustment(target="total", was=rep.score, now=6.0, reason="Partial credit after we talked")]})
    (grades, _), _ = _write(tmp_path, results, lms_export("moodle", roster=worksheet))
    rows = list(csv.DictReader(io.StringIO(grades.read_text())))
    comment = next(r for r in rows if r["Identifier"] == "Participant 576318")["Feedback comments"]
    assert next(r for r in rows if r["Identifier"] == "Participant 576318")["Grade"] == "6"
    assert "Adjusted by your instructor: Your total was adjusted. Partial credit after we talked." in comment
    assert "Adjusted" not in next(r for r in rows if r["Identifier"] == "Participant 576317")["Feedback comments"]
