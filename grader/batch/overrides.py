"""Overrides and regrades: an instructor's adjustment that survives every rerun, and who moved since the last run.

`python -m grader override OUT STUDENT (--score N | --check ID --points N) --reason TEXT` keeps an `Override` in
OUT's store, keyed on the student and on the sha256 of the submission it was made for. Every later run (and
merge) applies it to that student's report, so the gradebook, the summary, the import files and the student's
feedback (with its reason) carry it. When the student's submission changes, it is not applied and the row says
so: an adjustment made for one file is never silently kept for another.

A rerun compares each student's total with the last run's (overrides applied to both) and writes who moved,
and why, to `changes.csv`.

An override is the instructor's explicit decision and is applied as given, even where it lifts the total above
the cap that the rubric's severity band sets for the file's bug (a check's points moved past a leak's 50): that
is never silent. `above_band` says it, in the row's `Notes`, on its `changes.csv` row, in the summary's list of
overrides and when `override` records it. Points beyond a check's own maximum are refused.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from grader.batch.gradebook import cell
from grader.batch.models import Override, StudentResult
from grader.batch.names import student_label
from grader.batch.store import STORE_NAME, Store, latest_fingerprint
from grader.intake.collect import InputError
from grader.report.models import Adjustment, Report
from grader.report.view import points_text, score_text
from grader.rubric.results import binding_band


def apply_overrides(results: list[StudentResult], overrides: list[Override]) -> list[str]:
    """Each override applied to its student's report in place; returns one line per override not applied, and why
    (also noted in the student's row)."""
    by_key = {r.student.key: r for r in results}
    stale = []
    for o in overrides:
        r = by_key.get(o.student)
        if r is None:
            continue  # another shard's student, or no longer in the class
        what = f"check {o.check}" if o.check else "the total"
        if r.report is None or r.student.source_sha256 != o.source_sha256:
            line = (f"the override of {what} ({o.reason}) was made for another submission and is not applied: "
                    "record it again if it still holds")
            r.student.notes.append(line)
            stale.append(f"{student_label(r.student)}: {line}")
            continue
        rep = r.report
        if o.check:
            c = next(c for c in rep.checks if c.id == o.check)  # checked when the override was recorded
            checks = [x.model_copy(update={"score": o.points}) if x is c else x for x in rep.checks]
            score = min(max(rep.score + o.points - c.score, 0.0), rep.max_score)
            adjustment = Adjustment(target="check", check=o.check, was=c.score, now=o.points, reason=o.reason)
        else:
            checks, score = rep.checks, o.points
            adjustment = Adjustment(target="total", was=rep.score, now=o.points, reason=o.reason)
        r.report = rep.model_copy(update={"checks": checks, "score": round(score, 6),
                                          "adjustments": [*rep.adjustments, adjustment]})
        r.student.notes.append(f"override of {what}: {o.reason}")
    for r in by_key.values():
        if r.report is not None and (note := above_band(r.report)):
            r.student.notes.append(note)
    return stale


def above_band(report: Report) -> str:
    """One sentence when the instructor's overrides put the total above the cap of the severity band that the
    file's own failing check sets (the rubric's `ceiling`), "" otherwise."""
    band = binding_band(report.checks)
    if band is None or not report.adjustments:
        return ""
    cap = round(band.ceiling * report.max_score, 6)
    if report.score <= cap + 1e-6:
        return ""
    return (f"the instructor's override puts the total at {points_text(report.score, report.max_score)}, above the "
            f"{points_text(cap, report.max_score)} that the rubric's severity band for \u201c{band.title}\u201d "
            f"({band.id}) allows this file")


def find_student(results: list[StudentResult], who: str) -> StudentResult:
    """By key, id or e-mail; by name only when no other student has it."""
    exact = [r for r in results if who in (r.student.key, r.student.id)
             or (r.student.email and who.casefold() == r.student.email.casefold())]
    named = [r for r in results if r.student.name.casefold() == who.casefold()]
    found = exact or named
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(f"no student {who!r} in this store: give the ID, e-mail or key from gradebook.csv")
    raise InputError(f"{who!r} names {len(found)} students ("
                     + ", ".join(f"{r.student.key} {r.student.email}".strip() for r in found)
                     + "): give the ID or e-mail")


def record_override(out: Path, who: str, *, reason: str, score: float | None = None, check: str = "",
                    points: float | None = None) -> tuple[StudentResult, Override]:
    path = out / STORE_NAME
    fingerprint = latest_fingerprint(path) if path.is_file() else None
    if fingerprint is None:
        raise InputError(f"{out} holds no class run: pass the --out folder of `grade`")
    store = Store(path, rubric=fingerprint[0], secret=fingerprint[1])
    try:
        r = find_student(store.results(), who)
        override = new_override(r, reason=reason, score=score, check=check, points=points)
        store.put_override(override)
    finally:
        store.close()
    return r, override


def new_override(r: StudentResult, *, reason: str, score: float | None = None, check: str = "",
                 points: float | None = None, by_title: bool = False) -> Override:
    """The override of `r`'s graded report, checked as `override` checks it (the CLI and the course service).
    `by_title`: a refusal names the check by its title (the browser's form shows titles, the CLI takes ids)."""
    if not reason.strip():
        raise InputError("the reason must say why: the student reads it with the adjusted grade")
    if r.report is None:
        raise InputError(f"{student_label(r.student)} has no graded submission to adjust ({r.status})")
    if check:
        c = next((c for c in r.report.checks if c.id == check), None)
        if c is None:
            raise InputError(f"no check {check!r} in this rubric: one of {', '.join(x.id for x in r.report.checks)}")
        if points is None or not 0 <= points <= c.max_score:
            named = f"\u201c{c.title}\u201d" if by_title else check
            raise InputError(f"the points for {named} must be between 0 and {score_text(c.max_score)}")
        return Override(student=r.student.key, source_sha256=r.student.source_sha256, check=check, points=points,
                        reason=reason.strip())
    if score is None or not 0 <= score <= r.report.max_score:
        raise InputError(f"the score must be between 0 and {score_text(r.report.max_score)}")
    return Override(student=r.student.key, source_sha256=r.student.source_sha256, points=score, reason=reason.strip())


def as_reported(out: Path) -> list[StudentResult]:
    """The class as OUT's outputs report it now (every override applied): what an override's rewrite is compared
    with, so its `changes.csv` row says who moved and why."""
    path = out / STORE_NAME
    fingerprint = latest_fingerprint(path) if path.is_file() else None
    if fingerprint is None:
        return []
    store = Store(path, rubric=fingerprint[0], secret=fingerprint[1])
    try:
        results, overrides = store.results(), store.overrides()
    finally:
        store.close()
    apply_overrides(results, overrides)
    return results


@dataclass(frozen=True)
class Change:
    student: StudentResult
    before: float | None
    after: float | None
    why: str


def changes(before: list[StudentResult], after: list[StudentResult], *, regraded: bool) -> list[Change]:
    """Students whose total moved between two runs (None: no graded total). `regraded`: the rubric, the grader
    or the secret differs between them."""
    old = {r.student.key: r for r in before}
    moved = []
    for r in after:
        was = old.get(r.student.key)
        if was is None:
            continue
        a = was.report.score if was.report else None
        b = r.report.score if r.report else None
        if a == b:
            continue
        why = ("a new submission" if was.student.source_sha256 != r.student.source_sha256
               else _an_override(r.report) if [x.model_dump() for x in (was.report.adjustments if was.report else [])]
               != [x.model_dump() for x in (r.report.adjustments if r.report else [])]
               else "the rubric or grader changed" if regraded else "regraded")
        moved.append(Change(r, a, b, why))
    return moved


def _an_override(report: Report | None) -> str:
    note = above_band(report) if report is not None else ""
    return f"an override ({note})" if note else "an override"


def changes_csv(moved: list[Change]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["Student", "ID", "Before", "After", "Change", "Why"])
    for m in moved:
        delta = round((m.after or 0.0) - (m.before or 0.0), 6)
        writer.writerow([cell(m.student.student.name), cell(m.student.student.id),
                         "" if m.before is None else score_text(m.before),
                         "" if m.after is None else score_text(m.after),
                         f"+{score_text(delta)}" if delta > 0 else score_text(delta), cell(m.why)])
    return buf.getvalue()
