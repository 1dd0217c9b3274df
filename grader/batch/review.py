"""The needs-a-human list: every row a person must look at before the gradebook is imported.

From the rows' own flags (intake raised them: an ungradable upload, two candidate files, an ambiguous or
conflicting identity, not on the roster, an interface that hides the math) and from grading (a grader
error). An interface flag on a file that scored full marks is left out: nothing to decide there.
Written as `review.csv` and shown first in the summary.
"""

from __future__ import annotations

import csv
import io

from grader.batch.gradebook import cell
from grader.batch.models import StudentResult
from grader.report.models import ReviewItem

COLUMNS = ["Student", "ID", "Key", "Status", "Kind", "Detail"]


def review_items(results: list[StudentResult]) -> list[ReviewItem]:
    out = []
    for r in results:
        s, rep = r.student, r.report
        full = rep is not None and rep.max_score > 0 and rep.score >= rep.max_score
        base = dict(student=s.key, name=s.name, id=s.id, status=r.status)
        out += [ReviewItem(**base, kind=f.kind, detail=f.detail) for f in s.flags
                if not (f.kind == "interface" and full)]
        if r.status == "grader_error":
            out.append(ReviewItem(**base, kind="grader_error", detail=r.error or "the grader failed on this file"))
    return out


def review_csv(items: list[ReviewItem]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i in items:
        writer.writerow([cell(v) for v in (i.name, i.id, i.student, i.status, i.kind, i.detail)])
    return buf.getvalue()
