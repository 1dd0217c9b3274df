"""The report: what the grader concluded about one submission. Renderers only read it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# The report is assembled from what the layers below produced: scoring's check lines and group
# totals, the diagnosis's findings. Each is defined where it is made and only gathered here.
from grader.diagnosis.models import Diagnosis
from grader.intake.models import FlagKind, Skipped
from grader.rubric.results import CheckReport, GroupTotal
from grader.vocabulary import Model as _Model
from grader.vocabulary import Status, Visibility

__all__ = ["Adjustment", "CheckReport", "CheckTally", "ClassSummary", "Diagnosis", "GroupTotal", "Heatmap",
           "MisconceptionTally", "Report", "ReviewItem", "Runtime", "SimilarPair", "Status", "SummaryRow", "Visibility",
           "Visuals"]


class Runtime(_Model):
    isolation: str = Field(description="Isolation level reached, e.g. 'namespaces+uid' or 'rlimits-only'.")
    wall_s: float
    output: str = Field("", description="What the submission printed, truncated.")


class Heatmap(_Model):
    """Weights of one probe, row = receiving position; None marks NaN/inf."""

    title: str
    student: list[list[float | None]] | None
    expected: list[list[float]]


class Visuals(_Model):
    worked_example: Heatmap | None = None
    random_probe: Heatmap | None = None
    leak_row_change: list[float | None] | None = Field(
        None, description="Max change of each earlier output row under the future-only intervention."
    )
    unmasked_row_change: list[float] | None = Field(
        None, description="The same for unmasked attention: the negative control that proves the probe has teeth."
    )
    leak_intervention: str | None = Field(
        None, description="The intervention drawn, in words: the first one that moved the submission's earlier rows, "
                          "else future keys and values."
    )


class Adjustment(_Model):
    """An instructor's override (`python -m grader override`), applied on every run to the submission it was made for."""

    target: Literal["total", "check", "not_shown"] = Field(
        description="What was set: the total, one check, or (in a student's copy) a check not shown to them.")
    check: str = Field("", description="The check's id (target `check` only).")
    was: float | None = Field(None, description="Points before; None where the reader may not see them.")
    now: float | None = None
    reason: str


class Report(_Model):
    schema_version: Literal[1] = 1
    submission: str
    status: Literal["graded", "grader_error"] = Field(
        "graded", description="grader_error: the grader failed on this file; every check is an error, the run went on."
    )
    error: str | None = Field(None, description="Why the grader failed on this file (grader_error only).")
    score: float
    max_score: float
    checks: list[CheckReport]
    groups: list[GroupTotal] = []
    diagnoses: list[Diagnosis] = Field([], max_length=3)
    runtime: Runtime
    visuals: Visuals = Visuals()
    adjustments: list[Adjustment] = []


# --- A class at a glance: filled by a class run (grader/batch), rendered by report/summary.py ------


class CheckTally(BaseModel):
    id: str
    title: str
    passed: int
    failed: int
    error: int
    skipped: int

    @property
    def pass_rate(self) -> float:
        total = self.passed + self.failed + self.error + self.skipped
        return self.passed / total if total else 0.0


class MisconceptionTally(BaseModel):
    id: str
    title: str
    count: int
    submissions: list[str]  # the graded files, as found
    students: list[str] = []  # their student keys


class SummaryRow(_Model):
    """One student in the summary: enough to find the slow, the failing and their reports."""

    student: str = Field(description="The student key, unique in the class.")
    name: str = ""
    submission: str = ""
    status: Literal["graded", "ungradable", "no_submission", "grader_error"]
    score: float | None = None
    max_score: float = 0.0
    wall_s: float = 0.0
    errors: int = Field(0, description="Checks that ended in an error (the code raised, hung or crashed).")
    diagnoses: list[str] = []
    report: str = Field("", description="File stem of the student's reports (reports/STEM.json, feedback/STEM.md).")
    adjusted: list[str] = Field([], description="The instructor's overrides applied to this row, in words, and when "
                                                "they lift the total above a severity band's cap, that too.")


class ReviewItem(_Model):
    """One thing a person must look at before the gradebook is imported (review.csv, and the summary)."""

    student: str = Field(description="The student key, unique in the class.")
    name: str = ""
    id: str = ""
    status: Literal["graded", "ungradable", "no_submission", "grader_error"]
    kind: FlagKind | Literal["grader_error"]
    detail: str


class SimilarPair(_Model):
    """Submissions whose normalised source (names, comments, layout stripped) is the same or nearly:
    every student of a group of identical ones, or the two groups of a near pair."""

    students: list[str] = Field(min_length=2, description="Student keys, sorted.")
    similarity: float = Field(ge=0, le=1, description="Jaccard similarity of normalised syntax-tree 5-grams.")
    identical: bool = Field(description="The normalised sources are equal.")


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
    ungradable: int = 0  # handed in, but nothing in it could be graded
    grader_errors: int = 0
    review: list[ReviewItem] = Field([], description="What needs a human before the gradebook is imported.")
    skipped: list[Skipped] = []
    rows: list[SummaryRow] = []
    similar: list[SimilarPair] | None = Field(
        [], description="For the instructor to look at, never a penalty; null where not computed (a merge of "
                        "shards or an override's rewrite reads stores, which keep no sources).")
