"""View choices every renderer shares: what an audience sees, how numbers and names are shown.

Nothing heavy is imported here: the terminal path must not pay for matplotlib.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import PurePath

from grader.report.models import Adjustment, CheckReport, GroupTotal, Report
from grader.rubric.results import CAP_NOTE, apply_ceiling, binding_band
from grader.rubric.results import (
    costliest_first as costliest_first,  # the terminal and the hints share one order
)
from grader.vocabulary import Audience

OUTPUT_LIMIT = 2000  # characters of the submission's own printing shown back; it can be anything
PROBLEM = ("failed", "error")
Matrix = Sequence[Sequence[float | None]]


# What a student sees once results are released (`--published`): Gradescope's rule for each visibility.
RELEASED = ("visible", "after_due_date", "after_published")
# How an instructor's report marks a check the student does not see (yet).
VISIBILITY_NOTE = {
    "hidden": "hidden from students",
    "after_due_date": "shown to students after the due date",
    "after_published": "shown to students once published",
}


def shown_checks(report: Report, audience: Audience, *, published: bool = False) -> tuple[list[CheckReport], int]:
    """Checks this audience may see, and how many were held back. Students see 'visible' ones, and
    after release (`published`) the `after_due_date` and `after_published` ones too; never `hidden`."""
    if audience == "instructor":
        return list(report.checks), 0
    allowed = RELEASED if published else ("visible",)
    shown = [c for c in report.checks if c.visibility in allowed]
    return shown, len(report.checks) - len(shown)


def for_audience(report: Report, audience: Audience, *, published: bool = False) -> tuple[Report, int]:
    """The report as this audience may read it, and how many checks were held back.

    A student's copy holds only the checks shown to them, and nothing that names the others (a
    skipped check's text names its prerequisite; the random-probe picture shows a hidden probe).
    Before release its score counts only what is shown; once published it is the grade, hidden
    checks included, as on Gradescope.
    """
    checks, held_back = shown_checks(report, audience, published=published)
    if audience == "instructor" or not held_back:
        return report, held_back
    shown_ids = {c.id for c in checks}
    # An override on a check not shown keeps its reason and loses its name and points; a total before
    # release keeps its reason only (the total is not released yet).
    adjustments = [a if (a.target == "check" and a.check in shown_ids) or (a.target == "total" and published)
                   else Adjustment(target="not_shown" if a.target == "check" else "total", reason=a.reason)
                   for a in report.adjustments]
    withheld = [c for c in report.checks if c.id not in shown_ids]

    def redact(text: str) -> str:
        for c in withheld:
            text = text.replace(f"\u201c{c.title}\u201d ({c.id})", "a hidden check").replace(f"({c.id})", "")
        return text

    checks = [c.model_copy(update={"feedback": redact(c.feedback)}) for c in checks]
    groups: dict[str, list[CheckReport]] = {}
    for c in checks:
        groups.setdefault(c.group, []).append(c)
    visuals = report.visuals
    if "random_probes" not in shown_ids:
        visuals = visuals.model_copy(update={"random_probe": None})
    update = {
        "checks": checks,
        "groups": [GroupTotal(name=g, score=round(sum(c.score for c in cs), 6),
                              max_score=round(sum(c.max_score for c in cs), 6)) for g, cs in groups.items()],
        "visuals": visuals,
        "adjustments": adjustments,
    }
    if not published:
        # Only what is shown counts, severity bands included: the same total as the student's own `check`.
        max_score = round(sum(c.max_score for c in checks), 6)
        score = apply_ceiling(checks, round(sum(c.score for c in checks), 6), max_score)
        update |= {"score": score, "max_score": max_score}
    return report.model_copy(update=update), held_back


def held_back_note(report: Report, audience: Audience, *, published: bool) -> str:
    """What a reader is told about the checks their copy leaves out, true of each kind: ones released
    later, and hidden ones, which are never shown (`report` is the whole report, not the copy)."""
    shown, _ = shown_checks(report, audience, published=published)
    ids = {c.id for c in shown}
    withheld = [c for c in report.checks if c.id not in ids]
    if published:
        note = f"{len(withheld)} hidden check(s) count toward this score but are not shown."
        # A band set by a check the reader cannot see must still be told, or the total cannot be explained.
        binding = binding_band(report.checks, report.score, report.max_score)
        if binding is not None and binding.id not in ids:
            note += (f" One of them found a bug whose severity band caps the total at "
                     f"{points_text(report.score, report.max_score)} ({binding.ceiling:.0%}).")
        return note
    never = sum(c.visibility == "hidden" for c in withheld)
    later = len(withheld) - never
    parts = ([f"{later} further check(s) will be shown when results are released"] if later else []) + (
        [f"{never} hidden check(s) are never shown"] if never else [])
    return "; ".join(parts) + "."


def problems(checks: Sequence[CheckReport]) -> list[CheckReport]:
    return [c for c in checks if c.status in PROBLEM]


def score_line(report: Report, audience: Audience, held_back: int, *, published: bool) -> str:
    """The total as its reader may take it: a student's copy before results are released counts only
    the checks it shows, and must not read as the grade (hidden checks and their bands count there)."""
    points = points_text(report.score, report.max_score)
    if audience == "student" and held_back and not published:
        return f"Checks shown here: {points} (not your grade: it also counts checks not shown here)"
    return f"Score: {points}"


def to_do(c: CheckReport) -> bool:
    """A check that could not run only because a function it needs still raises NotImplementedError."""
    return bool(c.not_written) and c.status in PROBLEM


def needs_work(checks: Sequence[CheckReport]) -> list[CheckReport]:
    """The problems worth a section of their own: not the checks waiting for a function to be written."""
    return [c for c in problems(checks) if not to_do(c)]


def finding_line(c: CheckReport) -> str:
    """What the check found, in one sentence: its own finding (the line after the rubric's description
    of the check), without the severity note."""
    lines = [line for line in CAP_NOTE.sub("", c.feedback).splitlines() if line.strip()]
    text = (lines[1] if len(lines) > 1 else lines[0]) if lines else ""
    return _SENTENCE_END.split(text, maxsplit=1)[0]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def status_word(c: CheckReport) -> str:
    return TO_DO if to_do(c) else STATUS_WORD[c.status]


def not_written_text(checks: Sequence[CheckReport]) -> str | None:
    """One line for every check marked TO DO, instead of one section each repeating NotImplementedError."""
    waiting = [c for c in checks if to_do(c)]
    if not waiting:
        return None
    names = list(dict.fromkeys(n for c in waiting for n in c.not_written))
    one = len(names) == 1
    return (f"Not written yet: {' and '.join(names)} still raise{'s' if one else ''} NotImplementedError. "
            f"The {len(waiting)} check(s) marked {TO_DO} run once {'it is' if one else 'they are'} written.")


def points_cell(c: CheckReport, fmt: Callable[[float], str]) -> str:
    """A check's points column: a check worth no points shows no score (`0 / 0` says nothing)."""
    return NO_POINTS if c.max_score == 0 else f"{fmt(c.score)} / {fmt(c.max_score)}"


def cap_line(report: Report, checks: Sequence[CheckReport]) -> str | None:
    """Why the total is lower than its checks' points add up to, when a check shown here set the band."""
    binding = binding_band(checks, report.score, report.max_score)
    if binding is None:
        return None
    return (f"Capped at {points_text(report.score, report.max_score)} ({binding.ceiling:.0%}): \u201c{binding.title}\u201d "
            "found a bug of that severity (the rubric's band for it).")


def unseen_cap_line(checks: Sequence[CheckReport]) -> str | None:
    """One line when a check shown here found the kind of bug a check not shown here caps lower than
    any band shown here: the self-check's total is not the grade's, and the student is told so without
    that check being named (its band comes from the student view's `unseen_bands`)."""
    found = [c for c in checks if c.unseen_ceiling is not None]
    if not found:
        return None
    c = min(found, key=lambda c: c.unseen_ceiling)
    shown = binding_band(checks)
    if shown is not None and shown.ceiling <= c.unseen_ceiling:
        return None
    return (f"Your grade may be lower than this total: checks not shown here cap the kind of bug "
            f"\u201c{c.title}\u201d found at {c.unseen_ceiling:.0%} of the grade.")


def headline(report: Report, checks: Sequence[CheckReport], *, pictures: bool = True, held_back: int = 0) -> str:
    bad = problems(checks)
    if not checks:
        return "No checks ran."
    if not bad and report.diagnoses:  # found by checks this copy does not show
        return (f"All {len(checks)} checks shown here passed, but checks not shown here found what the "
                "diagnosis below describes.")
    if not bad:
        praise = f"All {len(checks)} checks {'shown here ' if held_back else ''}passed. Nicely done"
        if not pictures:
            return praise + "."
        return (praise + ": the pictures show your weights next to the correct ones, one row per receiving "
                "position, each row a set of shares over the sources it may see.")
    if not needs_work(checks) and not report.diagnoses:  # only checks waiting for a stub beside written code
        waiting = len(bad)
        return (f"Every check of what you have written passes; the {waiting} check(s) marked {TO_DO} run once "
                "the rest is written.")
    need = f"{len(bad)} of {len(checks)} checks need another look."
    return f"{need} Start with the diagnosis below." if report.diagnoses else need


# Characters that steer a display instead of showing: C0/C1 controls (ESC, the 8-bit CSI U+009B,
# carriage return...), format characters (bidi overrides and isolates, zero-width ones), line and
# paragraph separators, lone surrogates (an undecodable byte of a file name, written back raw),
# private-use and unassigned code points. Only newline and tab are kept.
_STEERING = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


# In ASCII only the C0 controls and DEL steer (category Cc); newline and tab are kept.
_ASCII_STEERING = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def printable(text: str) -> str:
    """Student text (its output, its errors, its file name) made inert for any display: every
    steering character becomes a visible escape such as \\x1b or \\u202e."""
    if text.isascii() and not _ASCII_STEERING.search(text):  # most text: nothing to escape, no character walk
        return text
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in _STEERING else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def score_text(value: float) -> str:
    """One score as every output prints it: at most two decimals, trailing zeros trimmed (`27.17`, `86`)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def points_text(score: float, max_score: float) -> str:
    """A score as a person reads it: `27.17 / 86`, at most two decimals, never `0.333333/1`."""
    return f"{score_text(score)} / {score_text(max_score)}"


_ISOLATION_SAYS = {
    "rlimits-only": "your code ran as you, under time and memory limits",
    "uid+rlimits": "your code ran as a separate user, under time and memory limits",
    "namespaces+uid": "your code ran as a separate user, without network, under time and memory limits",
}


def isolation_text(isolation: str) -> str:
    """The isolation level in one quiet phrase (the instructor's warning is the sandbox's, not the student's)."""
    says = _ISOLATION_SAYS.get(isolation)
    return f"{isolation} ({says})" if says else isolation


def fmt_number(value: float | None, digits: int = 3) -> str:
    return "NaN" if is_missing(value) else f"{value:.{digits}f}"


def truncate(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters not shown)"


def is_missing(value: float | None) -> bool:
    """None stands for NaN/inf in the Report; a float NaN/inf is treated the same way."""
    return value is None or not math.isfinite(value)


def leaked_cells(student: Matrix | None) -> list[tuple[int, int]]:
    """(receiving position, source) pairs above the diagonal where the student's weight is not zero."""
    if student is None:
        return []
    return [
        (i, j)
        for i, row in enumerate(student)
        for j, w in enumerate(row)
        if j > i and not is_missing(w) and w != 0.0
    ]


def report_filename(submission: str, suffix: str) -> str:
    """A file name for one submission's report that is safe anywhere and keeps batch names distinct."""
    stem = str(PurePath(submission).with_suffix("")).strip("/\\") or "report"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem.replace("/", "__").replace("\\", "__")) + suffix


STATUS_WORD = {"passed": "passed", "failed": "FAILED", "error": "ERROR", "skipped": "skipped"}
TO_DO = "TO DO"  # instead of ERROR, for a check that waits for a function still raising NotImplementedError
NO_POINTS = "no points"  # the points column of a check worth 0 (the gate computes_attention)


def adjustment_text(a: Adjustment, report: Report) -> str:
    """One instructor override as its reader may see it, with its reason (`report` is the reader's copy)."""
    if a.target == "check":
        title = next((c.title for c in report.checks if c.id == a.check), a.check)
        return f"\u201c{title}\u201d: {score_text(a.was or 0)} \u2192 {score_text(a.now or 0)} points. {a.reason}"
    if a.target == "total" and a.now is not None:
        return f"Total set to {score_text(a.now)} (it was {score_text(a.was or 0)}). {a.reason}"
    return f"{'Your total' if a.target == 'total' else 'A check not shown here'} was adjusted. {a.reason}"


def study_text(d) -> str:
    """Where to practise a diagnosis's idea: its recall cards and quiz items, or "" when it declares none."""
    parts = []
    if d.cards:
        parts.append(f"recall card{'s' if len(d.cards) > 1 else ''} {', '.join(d.cards)} (`grader cards` shows "
                     f"{'them' if len(d.cards) > 1 else 'it'} first)")
    if d.quiz:
        parts.append(f"quiz item{'s' if len(d.quiz) > 1 else ''} {', '.join(d.quiz)} (`grader quiz`)")
    return f"Practise the idea: {'; '.join(parts)}." if parts else ""
