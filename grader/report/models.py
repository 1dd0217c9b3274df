"""The report: what the grader concluded about one submission. Renderers only read it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# The report is assembled from what the layers below produced: scoring's check lines and group
# totals, the diagnosis's findings. Each is defined where it is made and only gathered here.
from grader.diagnosis.models import Diagnosis
from grader.intake.models import Skipped
from grader.rubric.results import CheckReport, GroupTotal
from grader.vocabulary import Model as _Model
from grader.vocabulary import Status, Visibility

__all__ = ["CheckReport", "CheckTally", "ClassSummary", "Diagnosis", "GroupTotal", "Heatmap", "MisconceptionTally",
           "Report", "Runtime", "SimilarPair", "Status", "SummaryRow", "Visibility", "Visuals"]


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
    status: Literal["graded", "no_submission", "grader_error"]
    score: float | None = None
    max_score: float = 0.0
    wall_s: float = 0.0
    errors: int = Field(0, description="Checks that ended in an error (the code raised, hung or crashed).")
    diagnoses: list[str] = []
    report: str = Field("", description="File stem of the student's reports (reports/STEM.json, feedback/STEM.md).")


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
    grader_errors: int = 0
    skipped: list[Skipped] = []
    rows: list[SummaryRow] = []
    similar: list[SimilarPair] = Field(
        [], description="For the instructor to look at, never a penalty; empty after a merge of shards.")
