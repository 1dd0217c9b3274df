"""Gradescope's results.json, built from a Report (the autograder format's documented fields only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from grader.report.models import Report
from grader.vocabulary import Visibility


class GradescopeTest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    number: str
    score: float
    max_score: float
    status: Literal["passed", "failed"]
    output: str
    output_format: Literal["text", "md"] = "md"
    visibility: Visibility
    tags: list[str] = []


class GradescopeResults(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: float
    output: str
    output_format: Literal["text", "md"] = "md"
    # What the submission printed is the student's own business, but only after grading is done.
    stdout_visibility: Visibility = "after_published"
    execution_time: float
    tests: list[GradescopeTest]


def _output(check) -> str:
    lines = [check.feedback]
    if check.expected is not None or check.observed is not None:
        lines.append(f"\n    expected: {check.expected}\n    observed: {check.observed}")
    if check.section and check.status != "passed":
        lines.append(f"\nReread: *{check.section}*")
    if check.hint and check.status != "passed":
        lines.append(f"\nHint: {check.hint}")
    return "\n".join(lines)


def to_gradescope(report: Report) -> GradescopeResults:
    diagnoses = "\n\n".join(f"**{d.title}.** {d.message} Reread *{d.section}*." for d in report.diagnoses)
    return GradescopeResults(
        score=report.score,
        output=diagnoses or "Every check passed.",
        execution_time=report.runtime.wall_s,
        tests=[
            GradescopeTest(
                name=c.title, number=f"{i}", score=c.score, max_score=c.max_score,
                status="passed" if c.status == "passed" else "failed", output=_output(c),
                visibility=c.visibility, tags=[c.group, c.id],
            )
            for i, c in enumerate(report.checks, start=1)
        ],
    )
