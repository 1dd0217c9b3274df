"""The grade each attempt carries once the instructor's overrides are applied, the attempt that counts,
and the class's gradebook files: all through the class run's own code (batch/overrides, gradebook, lms),
so an override made here is the same record, read the same way, as one made with `grader override`.

An attempt is a `StudentResult` of the roster student whose file it is (its source's sha256 is the
fingerprint an override is made for). The attempt that counts is the latest graded one (the course file
names no other policy)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from grader.batch.gradebook import gradebook_csv
from grader.batch.models import StudentResult
from grader.batch.overrides import apply_overrides
from grader.intake.models import Student
from grader.report.models import Report
from grader.serve import course as course_mod
from grader.serve.course import Course
from grader.serve.store import CourseStore, KeptOverride, Submission

COUNTS = "the latest graded attempt"  # which attempt goes into the gradebook and back to the LMS, in words
# The service hands back no feedback file: a comment it writes sends the student to their report page.
SERVICE_REPORT = ("Every check is in your report on the course's grader, where you handed in your file "
                  "(sign in with your link).")
EXPORTS = {"gradebook": "gradebook.csv", "canvas": "canvas-import.csv", "moodle": "moodle-grading-worksheet.csv"}


def fingerprint(store: CourseStore, s: Submission) -> str:
    return hashlib.sha256(store.source(s.id) or b"").hexdigest()


def as_result(store: CourseStore, s: Submission, student: Student | None = None) -> StudentResult:
    """The attempt as a class run's row: its report as graded (None where the grader failed on it)."""
    report = Report.model_validate_json(s.report) if s.report is not None else None
    student = (student or Student(key=s.student, id=s.student, name=s.student, platform="roster")).model_copy(
        update={"source_sha256": fingerprint(store, s), "submission": s.filename})
    status = "graded" if report is not None and report.status == "graded" else "grader_error"
    return StudentResult(student=student, status=status, report=report if status == "graded" else None,
                         error="" if status == "graded" else (report.error or "the grader failed") if report else "")


@dataclass(frozen=True)
class Adjusted:
    """One attempt with every override made for it applied, the records themselves, and what they say."""

    result: StudentResult
    kept: list[KeptOverride]
    notes: list[str]  # the override applied above a severity band's cap, and others made for another file


def adjusted(store: CourseStore, s: Submission, *, student: Student | None = None,
             kept: list[KeptOverride] | None = None, all_for_student: bool = False) -> Adjusted:
    """`all_for_student`: apply every override of the student (the gradebook's row: one made for an
    older file is not applied and its row says so); else only those made for this attempt's file."""
    r = as_result(store, s, student)
    kept = store.overrides(s.student) if kept is None else kept
    this_file = {k.override.check for k in kept if k.override.source_sha256 == r.student.source_sha256}
    # An older file's override of a target recorded again for this file is done with: it is not mentioned.
    mine = [k for k in kept if k.override.source_sha256 == r.student.source_sha256
            or (all_for_student and k.override.check not in this_file)]
    notes_before = len(r.student.notes)
    apply_overrides([r], [k.override for k in mine])
    notes = [n for n in r.student.notes[notes_before:] if not n.startswith("override of ")]
    return Adjusted(r, [k for k in mine if k.override.source_sha256 == r.student.source_sha256], notes)


def report_of(store: CourseStore, s: Submission) -> Report | None:
    """The attempt's report as it counts: its overrides applied (the passback sends this one)."""
    if s.report is None:
        return None
    a = adjusted(store, s)
    return a.result.report if a.result.report is not None else Report.model_validate_json(s.report)


def counted(history: list[Submission]) -> Submission | None:
    graded = [s for s in history if s.state == "graded"]
    return graded[-1] if graded else None


def _student(entry, key: str) -> Student:
    """A roster row as a class run's student, with the identity the class run gives it: a row of Moodle's
    grading worksheet is a Moodle participant (its Identifier); any other row's ID is read as Canvas's user id
    (as the LTI launch's default match reads it). So each platform's import file gets only its own ids, as
    `grade --lms` writes them: a Canvas roster's rows are left out of Moodle's worksheet, and named."""
    moodle = bool(entry.participant)
    return Student(key=key, id=entry.participant if moodle else entry.id, name=entry.name or key,
                   email=entry.email, section=entry.section, sis_id=entry.sis, sis_login=entry.login,
                   platform="moodle" if moodle else "canvas", on_roster=True)


def labels(course: Course) -> dict[str, str]:
    """Roster key -> the student as an instructor reads them (`student_label`: "Lee, Sam (5001)", as the CLI
    names two students of one name)."""
    from grader.batch.names import student_label

    return {key: student_label(_student(e, key)) for e in course_mod.roster_entries(course)
            if (key := course_mod.roster_key(e))}


def class_results(course: Course, store: CourseStore) -> list[StudentResult]:
    """One row per roster student: their counted attempt, every override of theirs applied."""
    results = []
    for entry in course_mod.roster_entries(course):
        key = course_mod.roster_key(entry)
        if not key:
            continue
        student = _student(entry, key)
        s = counted(store.history(key))
        if s is None:
            results.append(StudentResult(student=student.model_copy(update={"notes": ["no submission"]}),
                                         status="no_submission"))
            continue
        results.append(adjusted(store, s, student=student, all_for_student=True).result)
    return results


def export(course: Course, store: CourseStore, fmt: str, *, published: bool) -> tuple[str, list[str]]:
    """The file's text and the rows it could not carry, with why (the CLI's `--lms` lines)."""
    from grader.batch.lms import LAYOUTS, held_for_review, lms_export

    if fmt == "gradebook":
        return gradebook_csv(class_results(course, store)), []
    results = class_results(course, store)
    export_ = lms_export(fmt, assignment=course.assignment or course.title, roster=course.roster).model_copy(
        update={"rest": SERVICE_REPORT})
    layout = LAYOUTS[fmt]
    text, left_out = layout.grades(results, export_, published=published)
    return text, left_out + held_for_review(results, layout.grades_file)
