"""The report: what the grader concluded about one submission. Renderers only read it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["passed", "failed", "error", "skipped"]
Visibility = Literal["visible", "hidden", "after_due_date", "after_published"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CheckReport(_Model):
    id: str
    title: str
    group: str = "Other"
    status: Status
    score: float
    max_score: float
    visibility: Visibility = "visible"
    feedback: str = Field(description="What the student is told, in the chapter's words.")
    expected: str | None = Field(None, description="Expected numbers, short and printable.")
    observed: str | None = Field(None, description="Observed numbers, short and printable.")
    section: str | None = Field(None, description="Chapter section to reread.")
    hint: str | None = None
    cases_passed: int = 0
    cases_total: int = 0


class Diagnosis(_Model):
    id: str
    title: str
    message: str
    section: str


class GroupTotal(_Model):
    name: str
    score: float
    max_score: float


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


class Report(_Model):
    schema_version: Literal[1] = 1
    submission: str
    score: float
    max_score: float
    checks: list[CheckReport]
    groups: list[GroupTotal] = []
    diagnoses: list[Diagnosis] = Field([], max_length=3)
    runtime: Runtime
    visuals: Visuals = Visuals()
