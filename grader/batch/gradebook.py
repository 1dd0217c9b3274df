"""`gradebook.csv`: one row per student, in a shape Canvas's and Moodle's gradebook import take.

Columns, in order: `Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section` (Canvas's own export
header, so its import matches rows by ID), `Email`, `Score` (the column to map onto the assignment),
`Max Score`, `Status`, `Late`, `Submission`, `SHA256`, then one `check:<id>` column per check (its
points) and `Diagnoses` (misconception ids, space-separated), `Notes`. Scores are printed as the
reports print them (`report.view.score_text`: at most two decimals, `70.95`, `86`), never `70.947917`.

Every text cell is escaped against formula injection: one that starts with =, +, -, @, a tab or a
carriage return gets a leading apostrophe, so a spreadsheet shows it as text. Names come from students'
files and archives: terminal escapes and bidi overrides in them are written as visible escapes
(`report.view.printable`), so `cat skipped.csv` cannot steer the terminal.
"""

from __future__ import annotations

import csv
import io

from grader.batch.models import StudentResult
from grader.report.view import cap_line, printable, score_text

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Email", "Score", "Max Score", "Status",
          "Late", "Submission", "SHA256"]
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    if not isinstance(value, str):
        return value
    value = printable(value)
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def gradebook_csv(results: list[StudentResult]) -> str:
    check_ids = list(dict.fromkeys(c.id for r in results if r.report for c in r.report.checks))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(HEADER + [f"check:{i}" for i in check_ids] + ["Diagnoses", "Notes"])
    for r in results:
        s, rep = r.student, r.report
        scores = {c.id: score_text(c.score) for c in rep.checks} if rep else {}
        capped = cap_line(rep, rep.checks) if rep else None  # the total is not the checks' sum: say why
        notes = "; ".join(s.notes + [f.detail for f in s.flags] + ([r.error] if r.error else [])
                          + ([capped] if capped else []))
        row = [s.name, s.id, s.sis_id, s.sis_login, s.section, s.email, score_text(rep.score) if rep else "",
               score_text(rep.max_score) if rep else "", r.status, "yes" if s.late else "", s.submission, s.source_sha256,
               *(scores.get(i, "") for i in check_ids), " ".join(d.id for d in rep.diagnoses) if rep else "", notes]
        writer.writerow([cell(v) for v in row])
    return buf.getvalue()


def skipped_csv(skipped) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["path", "reason"])
    for s in skipped:
        writer.writerow([cell(s.path), cell(s.reason)])
    return buf.getvalue()
