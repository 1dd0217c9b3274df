"""The report: what the grader concluded about one submission. Renderers only read it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

# The report is assembled from what the layers below produced: scoring's check lines and group
# totals, the diagnosis's findings. Each is defined where it is made and only gathered here.
from grader.diagnosis.models import Diagnosis
from grader.rubric.results import CheckReport, GroupTotal
from grader.vocabulary import Model as _Model
from grader.vocabulary import Status, Visibility

__all__ = ["CheckReport", "Diagnosis", "GroupTotal", "Heatmap", "Report", "Runtime", "Status", "Visibility",
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
