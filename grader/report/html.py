"""One self-contained HTML file per submission: pictures inline, nothing loaded from the network.

Every string that came from the Report is escaped: feedback quotes the student's numbers and
runtime.output is whatever the submission printed.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from grader.paths import atomic_write_text
from grader.report.models import CheckReport, Report
from grader.report.plots import heatmap_png, row_change_png
from grader.report.view import (
    VISIBILITY_NOTE,
    Audience,
    adjustment_text,
    fmt_number,
    for_audience,
    headline,
    held_back_note,
    needs_work,
    not_written_text,
    points_cell,
    printable,
    problems,
    score_line,
    score_text,
    study_text,
    to_do,
    truncate,
    unseen_cap_line,
)

# Scoped under .grader-report so the same fragment can sit inside a Jupyter page without restyling it.
_CSS = """
.grader-report{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;
 max-width:980px;line-height:1.45;font-size:15px}
.grader-report h1{font-size:1.5em;margin:.2em 0}
.grader-report h2{font-size:1.2em;margin:1.2em 0 .4em;border-bottom:1px solid #ddd}
.grader-report h3{font-size:1.05em;margin:.6em 0 .3em}
.grader-report .score{font-size:1.25em;font-weight:600}
.grader-report .ok{color:#1e7b34}.grader-report .bad{color:#b42318}.grader-report .skip{color:#666}
.grader-report .todo{color:#8a5a00}
.grader-report .diag{border-left:5px solid #b42318;background:#fff4f2;padding:.5em 1em;margin:.6em 0}
.grader-report .diag.more{border-left-color:#e0a800;background:#fffaeb}
.grader-report .praise{border-left:5px solid #1e7b34;background:#eefaf1;padding:.5em 1em}
.grader-report table{border-collapse:collapse;margin:.4em 0}
.grader-report th,.grader-report td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
.grader-report td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.grader-report pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap;
 word-break:break-all;margin:0;font-size:13px}
.grader-report .reread{font-style:italic}
.grader-report figure{margin:.8em 0}
.grader-report figure img{max-width:100%;height:auto;border:1px solid #eee}
.grader-report figcaption{font-size:.9em;color:#444}
.grader-report .fail{border:1px solid #f0c4bf;border-radius:4px;padding:.4em .8em;margin:.6em 0}
"""

_STATUS_CLASS = {"passed": "ok", "failed": "bad", "error": "bad", "skipped": "skip"}
_STATUS_TEXT = {"passed": "\u2713 passed", "failed": "\u2717 failed", "error": "! error", "skipped": "- skipped"}
_TO_DO_CELL = '<td class="todo">\u2026 to do</td>'  # waits for a function still raising NotImplementedError


def _e(text: object) -> str:
    return escape(printable(str(text)), quote=True)  # bidi overrides cannot reorder what a reader sees


def _img(b64: str, alt: str, kind: str) -> str:
    return f'<img class="{kind}" data-kind="{kind}" alt="{_e(alt)}" src="data:image/png;base64,{b64}">'


def _failing_check(c: CheckReport) -> str:
    parts = [f'<div class="fail" id="check-{_e(c.id)}"><h3>{_e(c.title)} '
             f'<span class="{_STATUS_CLASS[c.status]}">({_e(c.status)})</span></h3>',
             f"<p>{_e(c.feedback)}</p>"]
    rows = [(label, value) for label, value in (("expected", c.expected), ("observed", c.observed))
            if value is not None]
    if rows:
        parts.append("<table>" + "".join(f"<tr><th>{label}</th><td><pre>{_e(value)}</pre></td></tr>"
                                         for label, value in rows) + "</table>")
    if c.cases_total:
        parts.append(f"<p>{c.cases_passed} of {c.cases_total} cases passed.</p>")
    if c.section:
        parts.append(f'<p class="reread">Reread: {_e(c.section)}</p>')
    if c.hint:
        parts.append(f"<p>{_e(c.hint)}</p>")  # labelled already: "Hint 2 of 3: ..." or "Hint: ..."
    parts.append("</div>")
    return "\n".join(parts)


def _visuals(report: Report) -> list[str]:
    v = report.visuals
    out: list[str] = []
    for hm in (v.worked_example, v.random_probe):
        if hm is None:
            continue
        out.append(f"<figure>{_img(heatmap_png(hm), hm.title + ': your weights next to the correct weights', 'heatmap')}"
                   f"<figcaption>{_e(hm.title)}. Row i is receiving position i, column j is source j; each "
                   "row is a set of shares that should sum to one. Dashed cells are forbidden (the source "
                   "comes after the receiver); a red outline marks a leaked cell, where your weight there "
                   "is not zero; grey hatching means NaN or inf.</figcaption></figure>")
    if v.leak_row_change is not None:
        changes = ", ".join(fmt_number(x, 6) for x in v.leak_row_change)
        what = v.leak_intervention or "Change only future keys and values"
        out.append(f"<figure>{_img(row_change_png(v.leak_row_change, v.unmasked_row_change, what), 'max change of each earlier output row: ' + changes, 'row-change')}"
                   f"<figcaption>{_e(what)}: nothing else was changed. With a correct mask every "
                   "earlier output row stays exactly where it was (red bars at 0); the grey bars are "
                   "attention without that protection, the negative control that proves this probe would catch a leak."
                   "</figcaption></figure>")
    if out:
        out.insert(0, "<h2>Where information flows</h2>")
    return out


def render_fragment(report: Report, *, audience: Audience = "student", published: bool = False) -> str:
    """The report as one <div>, with its own scoped style: what a notebook cell displays."""
    whole = report
    report, held_back = for_audience(report, audience, published=published)
    checks = report.checks
    fmt = score_text  # one rule for points in every output (report.view.score_text)
    bad = needs_work(checks)
    parts = [f'<div class="grader-report"><style>{_CSS}</style>',
             f"<h1>Attention check: {_e(report.submission)}</h1>",
             f'<p class="score">{_e(score_line(report, audience, held_back, published=published))}</p>',
             *([f"<p>{_e(unseen)}</p>"] if (unseen := unseen_cap_line(checks)) else []),
             f'<p class="{"diag" if problems(checks) else "praise"}">{_e(headline(report, checks, held_back=held_back))}</p>']
    for n, d in enumerate(report.diagnoses):
        parts.append(f'<div class="diag{" more" if n else ""}"><h3>{"Also possible: " if n else ""}{_e(d.title)}</h3>'
                     f"<p>{_e(d.message)}</p><p class=\"reread\">Reread: {_e(d.section)}</p>"
                     + (f'<p class="reread">{_e(t)}</p>' if (t := study_text(d)) else "") + "</div>")
    parts.append("<h2>Checks</h2><table><tr><th>group</th><th>check</th><th>status</th><th>points</th></tr>")
    for c in checks:
        title = f'<a href="#check-{_e(c.id)}">{_e(c.title)}</a>' if c in bad else _e(c.title)
        if audience == "instructor" and c.visibility in VISIBILITY_NOTE:
            title += f' <em class="skip">({_e(VISIBILITY_NOTE[c.visibility])})</em>'
        status = _TO_DO_CELL if to_do(c) else f'<td class="{_STATUS_CLASS[c.status]}">{_STATUS_TEXT[c.status]}</td>'
        parts.append(f"<tr><td>{_e(c.group)}</td><td>{title}</td>{status}"
                     f'<td class="num">{_e(points_cell(c, fmt))}</td></tr>')
    parts.append("</table>")
    if held_back:
        parts.append(f"<p>{_e(held_back_note(whole, audience, published=published))}</p>")
    if report.adjustments:
        parts.append("<h2>Adjusted by your instructor</h2><ul>"
                     + "".join(f"<li>{_e(adjustment_text(a, report))}</li>" for a in report.adjustments) + "</ul>")
    if waiting := not_written_text(checks):
        parts.append(f'<p class="todo">{_e(waiting)}</p>')
    # Pictures before the details: the pattern is quicker to read than the numbers.
    parts += _visuals(report)
    if bad:
        parts.append("<h2>What to fix</h2>")
        parts += [_failing_check(c) for c in bad]
    rt = report.runtime
    parts.append(f"<h2>Run</h2><p>Isolation: {_e(rt.isolation)}; wall time {rt.wall_s:.2f} s.</p>")
    if rt.output:
        parts.append(f"<p>What your code printed:</p><pre>{_e(truncate(rt.output))}</pre>")
    parts.append("</div>")
    return "\n".join(parts)


def render_html(report: Report, *, audience: Audience = "student", published: bool = False) -> str:
    """A complete HTML document; the CSP forbids any fetch, so a stray reference could not load anyway."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
        "style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Attention check: {_e(report.submission)}</title></head>\n"
        f'<body style="margin:1.5em">\n{render_fragment(report, audience=audience, published=published)}\n</body></html>\n'
    )


def write_html(report: Report, path: Path, *, audience: Audience = "student", published: bool = False) -> Path:
    """`check --html PATH`; for `grade --html DIR` pass DIR / report_filename(report.submission, ".html")."""
    path = Path(path)
    atomic_write_text(path, render_html(report, audience=audience, published=published))  # 0600: a report is its student's alone
    return path
