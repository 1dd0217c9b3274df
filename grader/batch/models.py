"""The typed results of a class run: what the store keeps, the gradebook lists and the summary counts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from grader.intake.models import Skipped, Student
from grader.report.models import Report

ResultStatus = Literal["graded", "no_submission", "grader_error"]


class StudentResult(BaseModel):
    """One gradebook row: a student and the report of their latest submission (None if there is none)."""

    model_config = ConfigDict(extra="forbid")

    student: Student
    status: ResultStatus
    report: Report | None = None
    report_name: str = ""  # file stem under reports/, unique and safe (see names.py)
    error: str = ""


class CheckTally(BaseModel):
    id: str
    title: str
    passed: int
    failed: int
    error: int
    skipped: int


class MisconceptionTally(BaseModel):
    id: str
    title: str
    count: int
    submissions: list[str]  # the graded files, as found
    students: list[str] = []  # their student keys


class ClassSummary(BaseModel):
    submissions: int  # students with a graded submission
    mean: float
    median: float
    min: float
    max: float
    max_score: float
    checks: list[CheckTally]
    misconceptions: list[MisconceptionTally]
    students: int = 0  # rows in the gradebook, with or without a submission
    no_submission: int = 0
    grader_errors: int = 0
    skipped: list[Skipped] = []
