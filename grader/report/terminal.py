"""Terminal feedback for `check`: a rich table and a diagnosis panel, plain text for pipes and NO_COLOR."""

from __future__ import annotations

import os

from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.report.models import CheckReport, Report
from grader.report.view import (
    NO_POINTS,
    Audience,
    adjustment_text,
    cap_line,
    costliest_first,
    finding_line,
    for_audience,
    headline,
    held_back_note,
    isolation_text,
    not_written_text,
    points_text,
    printable,
    problems,
    score_line,
    score_text,
    shown_checks,
    status_word,
    study_text,
    to_do,
    truncate,
    unseen_cap_line,
)
from grader.vocabulary import NOT_RUN

DETAILS = {"student": 3, "instructor": 0}  # a screenful; the HTML and markdown reports have every one
TERMINAL_OUTPUT_LIMIT = 600  # the full printout is in the HTML report; a terminal only needs a taste
_STYLE = {"passed": "green", "failed": "bold red", "error": "bold red", "skipped": "dim"}
_SYMBOL = {"passed": "\u2713", "failed": "\u2717", "error": "!", "skipped": "-"}
_TO_DO_SYMBOL, _TO_DO_STYLE = "\u2026", "yellow"  # waiting for a function to be written: calm, not red


def _plain(console: Console) -> bool:
    return not console.is_terminal or console.no_color or "NO_COLOR" in os.environ


def _label(c: CheckReport, audience: Audience) -> str:
    hidden = f" [{c.visibility}]" if audience == "instructor" and c.visibility != "visible" else ""
    return printable(c.title) + hidden


def render_terminal(report: Report, *, console: Console | None = None, audience: Audience = "student",
                    details: int | None = None) -> None:
    """details: how many failing checks to spell out (default 3 for a student, none in a class run)."""
    console = console or Console()
    if details is None:
        details = DETAILS[audience]
    checks, held_back = shown_checks(report, audience)
    fmt = score_text  # one rule for points in every output (report.view.score_text)
    # Pad score and maximum separately so both the slashes and the last digits line up; a check
    # worth nothing shows no score.
    scored = [c for c in checks if c.max_score]
    ws = max((len(fmt(c.score)) for c in scored), default=0)
    wm = max((len(fmt(c.max_score)) for c in scored), default=0)
    points = [f"{fmt(c.score):>{ws}} / {fmt(c.max_score):>{wm}}" if c.max_score else NO_POINTS for c in checks]
    if _plain(console):
        _render_plain(report, console, audience, checks, held_back, points, fmt, details)
    else:
        _render_rich(report, console, audience, checks, held_back, points, fmt, details)


def _one_cause(checks: list[CheckReport], details: int) -> str | None:
    """The one finding that stopped every check (a file that does not compile or import), when nothing else
    is to be said of any: the diagnosis has said it, so it is told once, not once per check."""
    failing = costliest_first(checks)
    if details == 0 or len(failing) < 2 or len(failing) != len(checks) or any(c.status != "error" or c.hint
                                                                            for c in failing):
        return None
    found = {finding_line(c) for c in failing}
    return found.pop() if len(found) == 1 else None


def _spelled_out(checks: list[CheckReport], details: int) -> list[CheckReport]:
    return [] if _one_cause(checks, details) else costliest_first(checks)[:details]


def _more(checks: list[CheckReport], details: int) -> list[str]:
    """One line for each failing check not spelled out: what it found (every failing check is named)."""
    if cause := _one_cause(checks, details):
        return [f"None of the {len(checks)} checks could run ({printable(cause.removeprefix(NOT_RUN))}): the diagnosis "
                "above says what to fix first."]
    rest = costliest_first(checks)[details:]
    if not rest or details == 0:
        return []
    # One finding that stops many checks (a NameError on every call) is one line naming them all.
    shared: dict[tuple[str, str], list[CheckReport]] = {}
    for c in rest:
        shared.setdefault((status_word(c), finding_line(c)), []).append(c)
    return [f"{word}: {printable(', '.join(c.title for c in cs))}: {printable(found)}"
            for (word, found), cs in shared.items()] + [
        "The --html and --markdown reports explain each one, with its numbers and hints."]


def _failure_lines(c: CheckReport) -> list[tuple[str, str]]:
    """(label, text) pairs for one failing check, labels padded by the caller so values align."""
    rows = [("", printable(c.feedback))]
    rows += [(label, printable(v)) for label, v in (("expected", c.expected), ("observed", c.observed))
             if v is not None]
    if c.section:
        rows.append(("reread", printable(c.section)))
    if c.hint:
        rows.append(("", printable(c.hint)))  # labelled already: "Hint 2 of 3: ..." or "Hint: ..."
    return rows


def _render_plain(report, console, audience, checks, held_back, points, fmt, details) -> None:
    out: list[str] = [f"Attention check: {printable(report.submission)}",
                      score_line(report, audience, held_back, published=False),
                      *([capped] if (capped := cap_line(report, checks)) else []),
                      *([unseen] if (unseen := unseen_cap_line(checks)) else []),
                      printable(headline(report, checks, pictures=False, held_back=held_back)), ""]
    if report.status == "grader_error":
        out += [f"The grader failed on this file: {printable(report.error or '')}", ""]
    if report.diagnoses:
        top = report.diagnoses[0]
        out += [f"Diagnosis: {printable(top.title)}", f"  {printable(top.message)}",
                f"  Reread: {printable(top.section)}"]
        out += [f"  {printable(study)}"] if (study := study_text(top)) else []
        out += [f"Also possible: {printable(d.title)} (reread: {printable(d.section)})"
                for d in report.diagnoses[1:]]
        out.append("")
    width = max((len(p) for p in points), default=0)
    for c, p in zip(checks, points, strict=True):
        out.append(f"  {status_word(c):<8} {p:>{width}}  {_label(c, audience)}")
    if held_back:
        out.append(f"  ({held_back_note(report, audience, published=False)})")
    copy = for_audience(report, audience)[0]  # an override on a check not shown keeps only its reason
    out += [f"  Adjusted by your instructor: {printable(adjustment_text(a, copy))}" for a in copy.adjustments]
    if waiting := not_written_text(checks):
        out += ["", waiting]
    for c in _spelled_out(checks, details):
        out += ["", f"{status_word(c)}: {_label(c, audience)}"]
        for label, text in _failure_lines(c):
            # Continuation lines keep the value column, so a multi-line message still reads as one.
            indent = " " * (12 if label else 2)
            text = text.replace("\n", "\n" + indent)
            out.append(f"  {label + ':':<9} {text}" if label else f"  {text}")
    if more := _more(checks, details):
        out += ["", *more]
    rt = report.runtime
    out += ["", f"Isolation: {printable(isolation_text(rt.isolation))}; wall time {rt.wall_s:.2f} s"]
    if rt.output:
        out += ["Your code printed:", printable(truncate(rt.output.rstrip(), TERMINAL_OUTPUT_LIMIT))]
    for line in out:
        console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)


def _render_rich(report, console, audience, checks, held_back, points, fmt, details) -> None:
    total_style = "bold green" if not problems(checks) else "bold"
    console.print(Text.assemble(("Attention check: ", "bold"), printable(report.submission), "   ",
                                (score_line(report, audience, held_back, published=False), total_style)))
    if capped := cap_line(report, checks):
        console.print(Text(capped, style="bold"))
    if unseen := unseen_cap_line(checks):
        console.print(Text(unseen, style="bold"))
    if report.status == "grader_error":
        console.print(Text.assemble(("The grader failed on this file: ", "bold red"), printable(report.error or "")))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("group", style="dim")
    table.add_column("check")
    table.add_column("status")
    table.add_column("points", justify="right")
    for c, p in zip(checks, points, strict=True):
        status = Text(f"{_TO_DO_SYMBOL} to do", style=_TO_DO_STYLE) if to_do(c) else \
            Text(f"{_SYMBOL[c.status]} {c.status}", style=_STYLE[c.status])
        table.add_row(Text(printable(c.group)), Text(_label(c, audience)), status, Text(p))
    console.print(table)
    if held_back:
        console.print(Text(held_back_note(report, audience, published=False), style="dim"))
    copy = for_audience(report, audience)[0]
    for a in copy.adjustments:
        console.print(Text.assemble(("Adjusted by your instructor: ", "bold"), printable(adjustment_text(a, copy))))
    if waiting := not_written_text(checks):
        console.print(Text(waiting, style=_TO_DO_STYLE))
    if report.diagnoses:
        top = report.diagnoses[0]
        body = Group(Text(printable(top.message)),
                     Text.assemble(("Reread: ", "bold"), (printable(top.section), "italic")),
                     *([Text(printable(study), style="dim")] if (study := study_text(top)) else []))
        console.print(Panel(body, title=Text(printable(top.title), style="bold"), border_style="red",
                            title_align="left"))
        for d in report.diagnoses[1:]:
            console.print(Text.assemble(("Also possible: ", "yellow"), printable(d.title), " (reread: ",
                                        (printable(d.section), "italic"), ")"))
    elif not problems(checks):
        console.print(Panel(Text(headline(report, checks, pictures=False, held_back=held_back)),
                            border_style="green"))
    for c in _spelled_out(checks, details):
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        for label, text in _failure_lines(c):
            grid.add_row(label, Text(text))
        console.print(Text(f"{_SYMBOL[c.status]} {_label(c, audience)}", style=_STYLE[c.status]))
        console.print(Padding(grid, (0, 0, 0, 2)))
    for line in _more(checks, details):
        console.print(Text(line, style="dim"))
    rt = report.runtime
    console.print(Text(f"isolation: {printable(isolation_text(rt.isolation))}   wall time {rt.wall_s:.2f} s",
                       style="dim"))
    if rt.output:
        console.print(Panel(Text(printable(truncate(rt.output.rstrip(), TERMINAL_OUTPUT_LIMIT))),
                            title="your code printed", border_style="dim", title_align="left"))


def render_class_summary(summary, *, console: Console | None = None) -> None:
    """A class at a glance (a batch.ClassSummary): scores, how each check fared, the commonest misconceptions."""
    console = console or Console()
    console.print(f"\n{summary.submissions} submissions: mean {score_text(summary.mean)}, median {score_text(summary.median)}, "
                  f"min {points_text(summary.min, summary.max_score)}, max {points_text(summary.max, summary.max_score)}")
    checks = Table("check", "passed", "failed", "error", "skipped", box=box.SIMPLE, title="Checks")
    for c in summary.checks:
        checks.add_row(printable(c.title), *(str(getattr(c, s)) for s in ("passed", "failed", "error", "skipped")))
    console.print(checks)
    if summary.misconceptions:
        found = Table("misconception", "submissions", box=box.SIMPLE, title="Misconceptions across the class")
        for m in summary.misconceptions:
            found.add_row(f"{m.id}: {printable(m.title)}", str(m.count))
        console.print(found)
