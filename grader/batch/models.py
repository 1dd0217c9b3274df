"""The typed results of a class run: what the store keeps, the gradebook lists and the summary counts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from grader.intake.models import Student
from grader.report.models import CheckTally, ClassSummary, MisconceptionTally, Report, SummaryRow

# The summary's types live with the report models (report/summary.py renders them); a class run fills them.
__all__ = ["CheckTally", "ClassSummary", "MisconceptionTally", "Override", "ResultStatus", "StudentResult",
           "SummaryRow"]

# graded: a report; ungradable: handed in, nothing in it gradable (the row's flag says why);
# no_submission: nothing handed in; grader_error: the grader failed on the file.
ResultStatus = Literal["graded", "ungradable", "no_submission", "grader_error"]


class StudentResult(BaseModel):
    """One gradebook row: a student and the report of their latest submission (None if there is none)."""

    model_config = ConfigDict(extra="forbid")

    student: Student
    status: ResultStatus
    report: Report | None = None
    report_name: str = ""  # file stem under reports/, unique and safe (see names.py)
    error: str = ""


class Override(BaseModel):
    """An instructor's adjustment of one student's total or one check, kept in the store and applied on every
    later run while the student's submission is the one it was made for (its sha256)."""

    model_config = ConfigDict(extra="forbid")

    student: str  # the student's key
    source_sha256: str
    check: str = ""  # empty: the total
    points: float
    reason: str
