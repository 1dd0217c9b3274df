"""What scoring makes of one check and of one group: the lines a report is assembled from."""

from __future__ import annotations

import re
from collections.abc import Iterable

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
    ceiling: float | None = Field(None, description="The severity band this check set (it failed, finding what "
                                                    "the rubric's band is for; or could not run, where the rubric "
                                                    "names a crash): the total is at most this share of the maximum.")
    unseen_ceiling: float | None = Field(None, description="A band a check not shown in this view sets on the "
                                                           "kind of bug this check found: the grade's total may be "
                                                           "at most this share of its maximum.")
    not_written: list[str] = Field([], description="Entry points still raising NotImplementedError, when that "
                                                   "alone kept this check from running: shown as 'to do'.")


class GroupTotal(Model):
    name: str
    score: float
    max_score: float


# Statuses whose ceiling holds: an error's only where the rubric named a crash (rubric/score.py `_band`).
BANDED = ("failed", "error")
CAP_NOTE = re.compile(r"\nBecause this check did not pass, the total is capped at [^\n]*$")


def costliest_first(reports: Iterable[CheckReport]) -> list[CheckReport]:
    """The checks that need work (failed, or could not run for another reason than a stub not written
    yet), the most points lost first, rubric order among equals: a screenful that spells out only
    some of them spells out the ones that cost most, and only their hints are spent."""
    return sorted((r for r in reports if r.status in BANDED and not r.not_written),
                  key=lambda r: -(r.max_score - r.score))


def binding_band(reports: Iterable[CheckReport], total: float | None = None,
                 max_score: float | None = None) -> CheckReport | None:
    """The check whose severity band is the lowest one set (a failing check's, or an error's where the
    rubric named a crash); with a total, only when that band is what the total was capped at."""
    banded = [r for r in reports if r.ceiling is not None and r.status in BANDED]
    report = min(banded, key=lambda r: r.ceiling, default=None)
    if report is None or total is None or abs(total - report.ceiling * max_score) < 1e-6:
        return report
    return None


def apply_ceiling(reports: list[CheckReport], score: float, max_score: float) -> float:
    """Severity bands: a failing check with a ceiling caps the total (the lowest ceiling wins), and its
    feedback says so. Only a check that failed, that found the kind of bug its band names: one that
    could not run (an error: the call crashed on some inputs) loses its points, never more. Applied
    again to the checks a student is shown (`report.view.for_audience`), so their copy's total
    follows the same rule as their own `check`; an earlier note is replaced."""
    for r in reports:
        r.feedback = CAP_NOTE.sub("", r.feedback)
    report = binding_band(reports)
    if report is None:
        return score
    cap = round(report.ceiling * max_score, 6)
    if score <= cap:
        return score
    report.feedback += (f"\nBecause this check did not pass, the total is capped at {cap:g} of "
                        f"{max_score:g} ({report.ceiling:.0%}): the rubric's severity band for this kind of bug.")
    return cap
