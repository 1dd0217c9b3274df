"""What scoring makes of one check and of one group: the lines a report is assembled from."""

from __future__ import annotations

from pydantic import Field

from grader.vocabulary import Model, Status, Visibility


class CheckReport(Model):
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


class GroupTotal(Model):
    name: str
    score: float
    max_score: float
