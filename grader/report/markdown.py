"""Markdown feedback, for places that render markdown (Gradescope, GitHub)."""

from __future__ import annotations

import re
from pathlib import Path

from grader.paths import atomic_write_text
from grader.report.models import Heatmap, Report
from grader.report.view import (
    VISIBILITY_NOTE,
    Audience,
    adjustment_text,
    fmt_number,
    for_audience,
    headline,
    held_back_note,
    leaked_cells,
    needs_work,
    not_written_text,
    points_cell,
    printable,
    score_line,
    score_text,
    status_word,
    study_text,
    truncate,
    unseen_cap_line,
)

# Punctuation that means something anywhere in a line; "(" only matters after "]", which is escaped.
_MD_INLINE = re.compile(r"([\\`*_\[\]|~])")
# Punctuation that only means something at the start of a line (headings, lists, quotes, rules).
_MD_LEADING = re.compile(r"^(\s*(?:\d+)?)([#+=>.)-])")


def md_escape(text: str) -> str:
    """Inline text: HTML entities first (GitHub renders raw HTML), then markdown punctuation."""
    text = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
    text = _MD_INLINE.sub(r"\\\1", text)
    return _MD_LEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


# A CommonMark code span: a run of backticks, then the shortest text up to a run of the same length.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def md_grader_text(text: str) -> str:
    """The grader's own words (a rubric hint, nothing a student wrote): its `code` spans stay code,
    everything between them is escaped as md_escape does. Never for text that quotes a submission."""
    text = printable(text).replace("\n", " ")
    parts, start = [], 0
    for m in _CODE_SPAN.finditer(text):
        parts += [md_escape(text[start:m.start()]), m.group(0)]
        start = m.end()
    return "".join(parts) + md_escape(text[start:])


def md_code_block(text: str) -> str:
    """A fence longer than any backtick run inside, so student text cannot close it."""
    text = printable(text)
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


def render_markdown(report: Report, *, audience: Audience = "student", published: bool = False) -> str:
    whole = report
    report, held_back = for_audience(report, audience, published=published)
    checks = report.checks
    fmt = score_text  # one rule for points in every output (report.view.score_text)
    lines = [f"# Attention check: {md_escape(report.submission)}", "",
             f"**{score_line(report, audience, held_back, published=published)}**", "",
             *([md_escape(unseen), ""] if (unseen := unseen_cap_line(checks)) else []),
             headline(report, checks, held_back=held_back), ""]
    for d in report.diagnoses[:1]:
        lines += [f"> **{md_escape(d.title)}**  ", f"> {md_escape(d.message)}  ",
                  f"> Reread: *{md_escape(d.section)}*", *([f">  \n> {md_escape(t)}"] if (t := study_text(d)) else []),
                  ""]
    for d in report.diagnoses[1:]:
        lines += [f"- Also possible: **{md_escape(d.title)}**: {md_escape(d.message)} "
                  f"(reread *{md_escape(d.section)}*)"]
    if len(report.diagnoses) > 1:
        lines.append("")
    lines += ["## Checks", "", "| group | check | status | points |", "|---|---|---|---:|"]
    for c in checks:
        note = f" *({VISIBILITY_NOTE[c.visibility]})*" if audience == "instructor" and c.visibility in VISIBILITY_NOTE else ""
        lines.append(f"| {md_escape(c.group)} | {md_escape(c.title)}{note} | {status_word(c)} | "
                     f"{points_cell(c, fmt)} |")
    lines.append("")
    if held_back:
        lines += [held_back_note(whole, audience, published=published), ""]
    if report.adjustments:
        lines += ["## Adjusted by your instructor", ""] + [f"- {md_escape(adjustment_text(a, report))}"
                                                          for a in report.adjustments] + [""]
    if waiting := not_written_text(checks):
        lines += [md_escape(waiting), ""]
    bad = needs_work(checks)
    if bad:
        lines += ["## What to fix", ""]
    for c in bad:
        lines += [f"### {md_escape(c.title)} ({status_word(c)})", "", md_escape(c.feedback), ""]
        if c.expected is not None:
            lines += ["Expected:", "", md_code_block(c.expected), ""]
        if c.observed is not None:
            lines += ["Observed:", "", md_code_block(c.observed), ""]
        if c.section:
            lines += [f"Reread: *{md_escape(c.section)}*", ""]
        if c.hint:
            lines += [md_grader_text(c.hint), ""]  # labelled already: "Hint 2 of 3: ..." or "Hint: ..."
    v = report.visuals
    if v.worked_example or v.random_probe or v.leak_row_change:
        lines += ["## Where information flows", ""]
    for hm in (v.worked_example, v.random_probe):
        if hm is not None:
            lines += _md_heatmap(hm)
    if v.leak_row_change is not None:
        lines += [f"**{md_escape(v.leak_intervention or 'Change only future keys and values')}**: max change of "
                  "each earlier output row "
                  "(0 means no information from the future reached it).", "",
                  "| earlier row | yours | without the protection (negative control) |", "|---:|---:|---:|"]
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


def write_markdown(report: Report, path: Path, *, audience: Audience = "student", published: bool = False) -> Path:
    """`check --markdown PATH`; for a batch pass DIR / report_filename(report.submission, ".md")."""
    path = Path(path)
    atomic_write_text(path, render_markdown(report, audience=audience, published=published))  # 0600: a report is its student's alone
    return path
