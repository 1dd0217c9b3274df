"""Gradescope's results.json, built from a Report (the autograder format's documented fields only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from grader.paths import atomic_write_text
from grader.report.markdown import md_code_block, md_escape, md_grader_text
from grader.report.models import Report
from grader.report.view import printable, truncate
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
    extra_data: dict[str, Any] = Field(
        default={}, description="Not shown to students; kept with the submission for the instructor's exports."
    )


# Gradescope renders these fields as markdown (and its HTML): every string is escaped, numbers go
# in a fenced block, so a student's error message cannot become a heading, an image or a link.
def _output(check) -> str:
    lines = [md_escape(check.feedback)]
    if check.expected is not None or check.observed is not None:
        lines.append("\n" + md_code_block(f"expected: {check.expected}\nobserved: {check.observed}"))
    if check.section and check.status != "passed":
        lines.append(f"\nReread: *{md_escape(check.section)}*")
    if check.hint and check.status != "passed":
        lines.append(f"\n{md_grader_text(check.hint)}")  # labelled already: "Hint 2 of 3: ..." or "Hint: ..."
    return "\n".join(lines)


def _no_diagnosis(report: Report) -> str:
    """The summary when no misconception is named: true of the checks, and naming no hidden one."""
    shown = [c for c in report.checks if c.visibility == "visible"]
    failing = [c for c in shown if c.status != "passed"]
    if failing:
        return f"{len(failing)} of {len(shown)} checks did not pass; each test below says why."
    if any(c.status != "passed" for c in report.checks):
        return "Every check shown here passed; your score also counts checks not shown here."
    return "Every check passed."


def to_gradescope(report: Report) -> GradescopeResults:
    diagnoses = "\n\n".join(f"**{md_escape(d.title)}.** {md_escape(d.message)} Reread *{md_escape(d.section)}*."
                            for d in report.diagnoses)
    if report.status == "grader_error":
        diagnoses = f"The grader failed on this file: {md_escape(report.error or '')}"
    output = diagnoses or _no_diagnosis(report)
    ids = [d.id for d in report.diagnoses]
    return GradescopeResults(
        score=report.score,
        output=output,
        execution_time=report.runtime.wall_s,
        # What the code printed stays out of the rendered output (it is anything the student wrote).
        extra_data={"diagnoses": ids, "isolation": report.runtime.isolation, "submission": report.submission,
                    "printed": truncate(report.runtime.output)},
        tests=[
            GradescopeTest(
                name=printable(c.title), number=f"{i}", score=c.score, max_score=c.max_score,
                status="passed" if c.status == "passed" else "failed", output=_output(c),
                visibility=c.visibility,
                # Diagnosis ids ride on the failing tests, so Gradescope's per-tag statistics count them.
                tags=[c.group, c.id, *(f"diagnosis:{d}" for d in ids if c.status != "passed")],
            )
            for i, c in enumerate(report.checks, start=1)
        ],
    )


def write_results(results: GradescopeResults | Report, path: Path) -> None:
    """results.json, the one way it is written (0600, atomically): from a report, or results of their
    own (the autograder's score 0 with a reason, when there is no report to give)."""
    if isinstance(results, Report):
        results = to_gradescope(results)
    atomic_write_text(path, results.model_dump_json(indent=1))
