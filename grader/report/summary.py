"""summary.html and summary.md: the class at a glance, from a ClassSummary a class run filled.

The page is one self-contained file beside reports/ and feedback/ (links are relative), built from a
Jinja2 template with autoescaping: student names and file names are data, never markup. The score
histogram is drawn by matplotlib through its Agg canvas, so no global backend is switched.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from grader.paths import atomic_write_text
from grader.report.models import ClassSummary, SummaryRow
from grader.report.view import points_text, printable, score_text

# A merge or an override's rewrite reads stores, which keep no sources: it cannot compare them.
NOT_LISTED = ("Not listed here: these outputs were written from the store (a merge, or an override's rewrite), "
              "which keeps no sources to compare; the summary of a `grade` run over the whole class lists them.")

SLOWEST = 10

def _inert(value: object) -> object:
    """Every value the page shows, made inert before autoescaping: names from archives may hold
    terminal escapes and bidi overrides (our own markup, the links, is left as it is)."""
    return printable(value) if isinstance(value, str) and not isinstance(value, Markup) else value


_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, finalize=_inert)
_ENV.filters["score"] = score_text  # scores as every report prints them: 70.95, never 70.9479
_PAGE = _ENV.from_string("""\
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>Class summary: {{ s.students }} students</title>
<style>
body{font-family:system-ui,sans-serif;color:#1a1a1a;max-width:1100px;margin:1.5em;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;margin-top:1.4em}
table{border-collapse:collapse}th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:.8em;background:#2b6cb0}.bad{color:#b42318}.note{color:#555}
</style></head>
<body>
<h1>Class summary</h1>
<p id="totals">{{ s.students }} students: {{ s.submissions }} graded, {{ s.no_submission }} without a submission,
{{ s.ungradable }} handed in nothing gradable, {{ s.grader_errors }} grader errors. Score mean {{ s.mean|score }}, median {{ s.median|score }},
range {{ s.min|score }} to {{ s.max|score }} (of {{ s.max_score|score }}).</p>
{% if histogram %}<figure><img id="histogram" alt="Histogram of scores" src="data:image/png;base64,{{ histogram }}">
<figcaption>Scores of the graded submissions.</figcaption></figure>{% endif %}

<h2>Needs a human</h2>
<p class="note">Look at these before importing the gradebook (also in review.csv).</p>
{% if s.review %}<table id="review"><tr><th>student</th><th>status</th><th>what</th><th>detail</th></tr>
{% for i in s.review %}<tr><td>{{ names.get(i.student) or i.name or i.student }}</td><td>{{ i.status|replace("_", " ") }}</td>
<td>{{ i.kind|replace("_", " ") }}</td><td>{{ i.detail }}</td></tr>
{% endfor %}</table>{% else %}<p>Nothing.</p>{% endif %}

<h2>Overrides</h2>
{% if adjusted %}<ul id="overrides">{% for r in adjusted %}{% for a in r.adjusted %}<li>{{ r.name }}: {{ a }}</li>{% endfor %}{% endfor %}</ul>
{% else %}<p>None.</p>{% endif %}

<h2>Pass rate per check</h2>
<table id="checks"><tr><th>check</th><th>passed</th><th>failed</th><th>error</th><th>skipped</th><th>pass rate</th></tr>
{% for c in s.checks %}<tr><td>{{ c.title }} <span class="note">({{ c.id }})</span></td><td class="num">{{ c.passed }}</td>
<td class="num">{{ c.failed }}</td><td class="num">{{ c.error }}</td><td class="num">{{ c.skipped }}</td>
<td><span class="bar" style="width:{{ (c.pass_rate * 120)|round|int }}px"></span> {{ (c.pass_rate * 100)|round|int }}%</td></tr>
{% endfor %}</table>

<h2>Misconceptions</h2>
{% if s.misconceptions %}<table id="misconceptions"><tr><th>misconception</th><th>students</th><th>who</th></tr>
{% for m in s.misconceptions %}<tr><td>{{ m.title }} <span class="note">({{ m.id }})</span></td><td class="num">{{ m.count }}</td>
<td>{% for who in m.students %}{{ names.get(who) or who }}{% if not loop.last %}; {% endif %}{% endfor %}</td></tr>
{% endfor %}</table>{% else %}<p>No misconception was diagnosed.</p>{% endif %}

<h2>Slowest submissions</h2>
<table id="slowest"><tr><th>student</th><th>wall time</th><th>report</th></tr>
{% for r in slowest %}<tr><td>{{ r.name }}</td><td class="num">{{ "%.2f"|format(r.wall_s) }} s</td><td>{{ links(r) }}</td></tr>
{% endfor %}</table>

<h2>Failing submissions</h2>
{% if failing %}<table id="failing"><tr><th>student</th><th>what happened</th><th>report</th></tr>
{% for r, why in failing %}<tr><td>{{ r.name }}</td><td class="bad">{{ why }}</td><td>{{ links(r) }}</td></tr>
{% endfor %}</table>{% else %}<p>Every submission ran.</p>{% endif %}

<h2>Similar submissions</h2>
<p class="note">Pairs whose source is the same, or nearly, once names, comments and layout are stripped. For you to
read side by side; similarity alone is no evidence of copying, and no score changes because of it.</p>
{% if s.similar %}<table id="similar"><tr><th>students</th><th>similarity</th></tr>
{% for p in s.similar %}<tr><td>{% for who in p.students %}{{ names.get(who) or who }}{% if not loop.last %}; {% endif %}{% endfor %}</td>
<td class="num">{{ "identical" if p.identical else "%.0f%%"|format(p.similarity * 100) }}</td></tr>
{% endfor %}</table>{% elif s.similar is none %}<p>{{ not_listed }}</p>{% else %}<p>None.</p>{% endif %}

<h2>Every student</h2>
<table id="students"><tr><th>student</th><th>key</th><th>score</th><th>diagnoses</th><th>reports</th></tr>
{% for r in s.rows %}<tr><td>{{ r.name }}</td><td>{{ r.student }}</td>
<td class="num">{% if r.score is none %}{{ r.status|replace("_", " ") }}{% else %}{{ r.score|score }} / {{ r.max_score|score }}{% endif %}</td>
<td>{{ r.diagnoses|join(", ") }}</td><td>{{ links(r) }}</td></tr>
{% endfor %}</table>
{% if s.skipped %}<h2>Not graded</h2><ul id="skipped">{% for k in s.skipped %}<li>{{ k.path }}: {{ k.reason }}</li>{% endfor %}</ul>{% endif %}
</body></html>
""")


def _links(row: SummaryRow) -> Markup:
    if not row.report:
        return Markup("")
    stem = quote(row.report)
    return Markup('<a href="reports/{0}.json">report</a> · <a href="feedback/{0}.md">feedback</a>').format(stem)


def failing(summary: ClassSummary) -> list[tuple[SummaryRow, str]]:
    """Submissions that did not run to the end: not graded, or a check that crashed, hung or raised."""
    out = []
    for r in summary.rows:
        if r.status == "grader_error":
            out.append((r, "the grader could not grade it"))
        elif r.status == "graded" and r.errors:
            out.append((r, f"{r.errors} check(s) ended in an error" + (f" ({', '.join(r.diagnoses)})" if r.diagnoses else "")))
    return out


def slowest(summary: ClassSummary) -> list[SummaryRow]:
    return sorted((r for r in summary.rows if r.status == "graded"), key=lambda r: -r.wall_s)[:SLOWEST]


def histogram_png(summary: ClassSummary) -> str | None:
    scores = [r.score for r in summary.rows if r.score is not None]
    if not scores:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 2.6), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    top = summary.max_score or max(scores) or 1.0
    ax.hist(scores, bins=min(20, max(5, len(set(scores)))), range=(0, top), color="#2b6cb0", edgecolor="white")
    ax.set_xlabel(f"score (of {top:g})")
    ax.set_ylabel("students")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def names(summary: ClassSummary) -> dict[str, str]:
    """Student key -> the name a person reads, with the id beside it (`batch.names.student_label`; the summary
    keeps keys: they are unique and stable)."""
    return {r.student: r.name for r in summary.rows if r.name}


def render_summary_html(summary: ClassSummary) -> str:
    return _PAGE.render(s=summary, names=names(summary), histogram=histogram_png(summary), slowest=slowest(summary),
                        failing=failing(summary), links=_links, not_listed=NOT_LISTED,
                        adjusted=[r for r in summary.rows if r.adjusted])


def render_summary_markdown(summary: ClassSummary) -> str:
    from grader.report.markdown import md_escape

    s = summary
    lines = ["# Class summary", "",
             f"{s.students} students: {s.submissions} graded, {s.no_submission} without a submission, "
             f"{s.ungradable} handed in nothing gradable, "
             f"{s.grader_errors} grader errors. Score mean {score_text(s.mean)}, median {score_text(s.median)}, "
             f"range {score_text(s.min)} to {score_text(s.max)} (of {score_text(s.max_score)}).", "",
             "## Needs a human", "", "Look at these before importing the gradebook (also in review.csv).", ""]
    who = names(s)
    lines += [f"- {md_escape(who.get(i.student) or i.name or i.student)} ({i.status.replace('_', ' ')}): "
              f"{i.kind.replace('_', ' ')}: {md_escape(i.detail)}" for i in s.review] or ["Nothing."]
    lines += ["", "## Overrides", ""]
    lines += [f"- {md_escape(r.name)}: {md_escape(a)}" for r in s.rows for a in r.adjusted] or ["None."]
    lines += ["", "## Pass rate per check", "", "| check | passed | failed | error | skipped | pass rate |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {md_escape(c.title)} | {c.passed} | {c.failed} | {c.error} | {c.skipped} | {c.pass_rate:.0%} |"
              for c in s.checks]
    lines += ["", "## Misconceptions", ""]
    lines += [f"- **{md_escape(m.title)}** ({md_escape(m.id)}): {m.count}: "
              f"{md_escape('; '.join(who.get(k) or k for k in m.students))}"
              for m in s.misconceptions] or ["No misconception was diagnosed."]
    lines += ["", "## Slowest submissions", ""]
    lines += [f"- {md_escape(r.name)}: {r.wall_s:.2f} s" for r in slowest(s)]
    lines += ["", "## Failing submissions", ""]
    lines += [f"- {md_escape(r.name)}: {md_escape(why)}" for r, why in failing(s)] or ["Every submission ran."]
    lines += ["", "## Similar submissions", "",
              "Same or nearly the same source once names, comments and layout are stripped; read them side by "
              "side. No score changes because of it.", ""]
    lines += [f"- {md_escape('; '.join(who.get(k) or k for k in p.students))}: "
              f"{'identical' if p.identical else f'{p.similarity:.0%}'}"
              for p in s.similar or []] or [NOT_LISTED if s.similar is None else "None."]
    lines += ["", "## Every student", "", "| student | key | score | diagnoses | report |", "|---|---|---:|---|---|"]
    for r in s.rows:
        score = r.status.replace("_", " ") if r.score is None else points_text(r.score, r.max_score)
        link = f"[report](reports/{quote(r.report)}.json), [feedback](feedback/{quote(r.report)}.md)" if r.report else ""
        lines.append(f"| {md_escape(r.name)} | {md_escape(r.student)} | {score} | {md_escape(', '.join(r.diagnoses))} | {link} |")
    return "\n".join(lines) + "\n"


def write_summary(out: Path, summary: ClassSummary) -> list[Path]:
    paths = [out / "summary.html", out / "summary.md"]
    atomic_write_text(paths[0], render_summary_html(summary))
    atomic_write_text(paths[1], render_summary_markdown(summary))
    return paths
