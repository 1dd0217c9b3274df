"""Markdown feedback (Gradescope, GitHub), plus the small view helpers every renderer shares.

The helpers live here because this module imports nothing heavy: the terminal path must not pay
for matplotlib, and the HTML path needs the same choices (what to show, how to word the headline).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath
from typing import Literal

from grader.report.models import CheckReport, Heatmap, Report

Audience = Literal["student", "instructor"]
OUTPUT_LIMIT = 2000  # characters of the submission's own printing shown back; it can be anything
PROBLEM = ("failed", "error")
Matrix = Sequence[Sequence[float | None]]


# ---- shared view helpers -------------------------------------------------------------------


def shown_checks(report: Report, audience: Audience) -> tuple[list[CheckReport], int]:
    """Checks this audience may see, and how many were held back. Students see only 'visible' ones."""
    if audience == "instructor":
        return list(report.checks), 0
    shown = [c for c in report.checks if c.visibility == "visible"]
    return shown, len(report.checks) - len(shown)


def problems(checks: Sequence[CheckReport]) -> list[CheckReport]:
    return [c for c in checks if c.status in PROBLEM]


def headline(report: Report, checks: Sequence[CheckReport], *, pictures: bool = True) -> str:
    bad = problems(checks)
    if not checks:
        return "No checks ran."
    if not bad:
        praise = f"All {len(checks)} checks passed. Nicely done"
        if not pictures:
            return praise + "."
        return (praise + ": the pictures show your weights next to the correct ones, one row per receiving "
                "position, each row a set of shares over the sources it may see.")
    return f"{len(bad)} of {len(checks)} checks need another look. Start with the diagnosis below."


def points_formatter(values: Sequence[float]) -> Callable[[float], str]:
    """One decimal count for a whole column (at most 2), so the points line up."""
    decimals = 0
    for v in values:
        for d in range(3):
            if abs(round(v, d) - v) < 1e-9:
                decimals = max(decimals, d)
                break
        else:
            decimals = 2
    return lambda v: f"{v:.{decimals}f}"


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

# ---- markdown --------------------------------------------------------------------------------

# Punctuation that means something anywhere in a line; "(" only matters after "]", which is escaped.
_MD_INLINE = re.compile(r"([\\`*_\[\]|~])")
# Punctuation that only means something at the start of a line (headings, lists, quotes, rules).
_MD_LEADING = re.compile(r"^(\s*(?:\d+)?)([#+=>.)-])")


def md_escape(text: str) -> str:
    """Inline text: HTML entities first (GitHub renders raw HTML), then markdown punctuation."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
    text = _MD_INLINE.sub(r"\\\1", text)
    return _MD_LEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def md_code_block(text: str) -> str:
    """A fence longer than any backtick run inside, so student text cannot close it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _md_heatmap(hm: Heatmap) -> list[str]:
    """The pictures as tables: GitHub and Gradescope drop inline images, numbers still read."""
    out = [f"**{md_escape(hm.title)}**: rows are receiving positions, columns are sources; "
           "`(x)` marks a forbidden cell (source after receiver), **bold** a leaked one, NaN stands for NaN/inf.",
           ""]
    leaks = set(leaked_cells(hm.student))
    for label, weights in (("your weights", hm.student), ("correct weights", hm.expected)):
        out.append(f"*{label}*")
        out.append("")
        if weights is None:
            out += ["no weights returned", ""]
            continue
        # Columns from the matrix itself: a wrong submission's weights need not be square.
        t = max((len(row) for row in weights), default=0)
        out += ["| i \\ j | " + " | ".join(str(j) for j in range(t)) + " |", "|---|" + "---:|" * t]
        for i, row in enumerate(weights):
            cells = []
            for j, w in enumerate(row):
                cell = fmt_number(w)
                if (i, j) in leaks and weights is hm.student:
                    cell = f"**{cell}**"
                cells.append(f"({cell})" if j > i else cell)
            out.append(f"| {i} | " + " | ".join(cells + [""] * (t - len(row))) + " |")
        out.append("")
    return out


def render_markdown(report: Report, *, audience: Audience = "student") -> str:
    checks, held_back = shown_checks(report, audience)
    fmt = points_formatter([c.score for c in checks] + [c.max_score for c in checks]
                           + [report.score, report.max_score])
    lines = [f"# Attention check: {md_escape(report.submission)}", "",
             f"**Score: {fmt(report.score)} / {fmt(report.max_score)}**", "", headline(report, checks), ""]
    for d in report.diagnoses[:1]:
        lines += [f"> **{md_escape(d.title)}**  ", f"> {md_escape(d.message)}  ",
                  f"> Reread: *{md_escape(d.section)}*", ""]
    for d in report.diagnoses[1:]:
        lines += [f"- Also possible: **{md_escape(d.title)}**: {md_escape(d.message)} "
                  f"(reread *{md_escape(d.section)}*)"]
    if len(report.diagnoses) > 1:
        lines.append("")
    lines += ["## Checks", "", "| group | check | status | points |", "|---|---|---|---:|"]
    for c in checks:
        lines.append(f"| {md_escape(c.group)} | {md_escape(c.title)} | {STATUS_WORD[c.status]} | "
                     f"{fmt(c.score)} / {fmt(c.max_score)} |")
    lines.append("")
    if held_back:
        lines += [f"{held_back} further check(s) are hidden until results are released.", ""]
    bad = problems(checks)
    if bad:
        lines += ["## What to fix", ""]
    for c in bad:
        lines += [f"### {md_escape(c.title)} ({STATUS_WORD[c.status]})", "", md_escape(c.feedback), ""]
        if c.expected is not None:
            lines += ["Expected:", "", md_code_block(c.expected), ""]
        if c.observed is not None:
            lines += ["Observed:", "", md_code_block(c.observed), ""]
        if c.section:
            lines += [f"Reread: *{md_escape(c.section)}*", ""]
        if c.hint:
            lines += [f"Hint: {md_escape(c.hint)}", ""]
    v = report.visuals
    if v.worked_example or v.random_probe or v.leak_row_change:
        lines += ["## Where information flows", ""]
    for hm in (v.worked_example, v.random_probe):
        if hm is not None:
            lines += _md_heatmap(hm)
    if v.leak_row_change is not None:
        lines += ["**Change only the future**: max change of each earlier output row "
                  "(0 means no information from the future reached it).", "",
                  "| earlier row | yours | unmasked (negative control) |", "|---:|---:|---:|"]
        control = v.unmasked_row_change or []
        for i, change in enumerate(v.leak_row_change):
            ctrl = fmt_number(control[i], 6) if i < len(control) else ""
            lines.append(f"| {i} | {fmt_number(change, 6)} | {ctrl} |")
        lines.append("")
    lines += ["## Run", "", f"Isolation: {md_escape(report.runtime.isolation)}, "
              f"wall time {report.runtime.wall_s:.2f} s", ""]
    if report.runtime.output:
        lines += ["What your code printed:", "", md_code_block(truncate(report.runtime.output)), ""]
    return "\n".join(lines)


def write_markdown(report: Report, path: Path, *, audience: Audience = "student") -> Path:
    """`check --markdown PATH`; for a batch pass DIR / report_filename(report.submission, ".md")."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report, audience=audience), encoding="utf-8")
    return path
