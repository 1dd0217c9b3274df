"""The class at a glance, from the gradebook's rows."""

from __future__ import annotations

import statistics
from collections import Counter

from grader.batch.models import CheckTally, ClassSummary, MisconceptionTally, StudentResult, SummaryRow
from grader.batch.names import student_label
from grader.batch.overrides import above_band
from grader.batch.review import review_items
from grader.intake.models import Skipped
from grader.report.view import adjustment_text


def summarize(results: list[StudentResult], skipped: list[Skipped] = ()) -> ClassSummary:
    graded = [r for r in results if r.report is not None]
    scores = [r.report.score for r in graded] or [0.0]
    tallies: dict[str, Counter] = {}
    titles: dict[str, str] = {}
    who: dict[str, list[StudentResult]] = {}
    for r in graded:
        for c in r.report.checks:
            tallies.setdefault(c.id, Counter())[c.status] += 1
            titles[c.id] = c.title
        for d in r.report.diagnoses:
            who.setdefault(d.id, []).append(r)
            titles[f"d:{d.id}"] = d.title
    return ClassSummary(
        submissions=len(graded), mean=statistics.fmean(scores), median=statistics.median(scores),
        min=min(scores), max=max(scores), max_score=max((r.report.max_score for r in graded), default=0.0),
        checks=[CheckTally(id=i, title=titles[i], **{s: t[s] for s in ("passed", "failed", "error", "skipped")})
                for i, t in tallies.items()],
        misconceptions=sorted((MisconceptionTally(id=i, title=titles[f"d:{i}"], count=len(rs),
                                                  submissions=[r.report.submission for r in rs],
                                                  students=[r.student.key for r in rs])
                               for i, rs in who.items()), key=lambda m: (-m.count, m.id)),
        students=len(results), no_submission=sum(r.status == "no_submission" for r in results),
        ungradable=sum(r.status == "ungradable" for r in results),
        grader_errors=sum(r.status == "grader_error" for r in results), skipped=list(skipped),
        review=review_items(results),
        rows=[_row(r) for r in results],
    )


def _row(r: StudentResult) -> SummaryRow:
    rep = r.report
    return SummaryRow(
        student=r.student.key, name=student_label(r.student), submission=r.student.submission, status=r.status,
        score=rep.score if rep else None, max_score=rep.max_score if rep else 0.0,
        wall_s=rep.runtime.wall_s if rep else 0.0, errors=sum(c.status == "error" for c in rep.checks) if rep else 0,
        diagnoses=[d.id for d in rep.diagnoses] if rep else [], report=r.report_name if rep else "",
        adjusted=[adjustment_text(a, rep) for a in rep.adjustments] + ([above] if (above := above_band(rep)) else [])
        if rep else [],
    )
