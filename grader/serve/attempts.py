"""What changed between two attempts of one student: the code (a notebook as the script it is graded
as) and the findings, as `check --watch` says them, each side under the same reader's view."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from grader.report.models import Report
from grader.report.view import for_audience, points_text
from grader.watch import changes

MAX_DIFF_LINES = 400  # a page stays readable; the rest is said to be cut


def code_text(filename: str, source: bytes) -> str:
    """The code a reader compares: a notebook's script (its code cells, marked), else the file's text."""
    from grader.intake import bounds, notebook

    if filename.endswith(".ipynb"):
        try:
            return bounds.reading("this notebook", lambda: notebook.notebook_to_script(source).script)
        except bounds.Unreadable as exc:
            return f"# (this notebook could not be read: {exc})\n"
    return source.decode("utf-8", "replace")


@dataclass(frozen=True)
class AttemptChange:
    since: int  # the attempt compared with (its number, from 1)
    score: str | None  # "50 / 100 -> 100 / 100"; None while the grade is not shown
    findings: list[str]  # checks that started or stopped passing, diagnoses that came or went
    diff: list[str]  # the unified diff of the code, at most MAX_DIFF_LINES
    cut: int  # diff lines left out


def between(number: int, before: tuple[str, bytes, Report | None], after: tuple[str, bytes, Report | None], *,
            audience: str, published: bool) -> AttemptChange:
    """Attempt `number - 1` (before) against attempt `number` (after); each is (filename, source, report)."""
    (old_name, old_src, old_report), (new_name, new_src, new_report) = before, after
    diff = list(difflib.unified_diff(code_text(old_name, old_src).splitlines(), code_text(new_name, new_src).splitlines(),
                                     f"attempt {number - 1}: {old_name}", f"attempt {number}: {new_name}", lineterm=""))
    findings, score = [], None
    if old_report is not None and new_report is not None:
        old_view, _ = for_audience(old_report, audience, published=published)
        new_view, _ = for_audience(new_report, audience, published=published)
        findings = [line.strip() for line in changes(old_view, new_view)]
        if audience == "instructor" or published:
            score = (f"{points_text(old_report.score, old_report.max_score)} -> "
                     f"{points_text(new_report.score, new_report.max_score)}")
    return AttemptChange(number - 1, score, findings, diff[:MAX_DIFF_LINES], max(0, len(diff) - MAX_DIFF_LINES))
