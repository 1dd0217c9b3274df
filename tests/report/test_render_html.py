"""The HTML report: parses, loads nothing from outside, one picture per promised heatmap, text escaped."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser

import matplotlib.image
import pytest
from support.reports import HOSTILE_OUTPUT, failing_report, passing_report

from grader.report.html import render_fragment, render_html, write_html
from grader.report.models import Heatmap, Visuals
from grader.report.plots import heatmap_png, row_change_png
from grader.report.view import leaked_cells, report_filename

_VOID = {"meta", "img", "br", "hr", "input", "link", "col", "area", "base", "embed", "source", "wbr"}
# Tags that fetch or run something; a self-contained report has none of them.
_FETCHING_TAGS = {"script", "link", "iframe", "object", "embed", "frame", "audio", "video", "source", "base"}


class _Doc(HTMLParser):
    """Collects tags, images, attribute references and text, and checks that tags nest properly."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.images: list[dict[str, str]] = []
        self.refs: list[str] = []
        self.text: list[str] = []
        self.errors: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        if tag == "img":
            self.images.append(a)
        self.refs += [v for k, v in a.items() if k in ("src", "href", "srcset", "action", "data", "poster")]
        if "style" in a:
            self.styles.append(a["style"])
        self._in_style = tag == "style"
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        self._in_style = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)


def parse(html: str) -> _Doc:
    doc = _Doc()
    doc.feed(html)
    doc.close()
    assert not doc.errors, doc.errors
    assert not doc.stack, f"unclosed tags {doc.stack}"
    return doc


def external_references(doc: _Doc) -> list[str]:
    bad = [r for r in doc.refs if not (r.startswith("data:image/png;base64,") or r.startswith("#"))]
    bad += [f"<{t}>" for t in doc.tags if t in _FETCHING_TAGS]
    bad += [s for s in doc.styles if "url(" in s or "@import" in s]
    return bad


def promised_heatmaps(visuals: Visuals) -> int:
    return sum(h is not None for h in (visuals.worked_example, visuals.random_probe))


@pytest.mark.parametrize("make", [passing_report, failing_report])
def test_document_parses_and_is_self_contained(make):
    report = make()
    doc = parse(render_html(report))
    assert doc.tags[:2] == ["html", "head"]
    assert external_references(doc) == []
    kinds = [img["data-kind"] for img in doc.images]
    assert kinds.count("heatmap") == promised_heatmaps(report.visuals) == 2
    assert kinds.count("row-change") == 1
    assert all(img["alt"] for img in doc.images)


def test_reference_check_has_teeth():
    """Negative control: the self-containment check does flag a network reference and a script."""
    html = render_html(passing_report()).replace(
        "</body>", '<img src="https://example.org/x.png"><script>1</script></body>')
    assert external_references(parse(html)) == ["https://example.org/x.png", "<script>"]


def test_images_follow_the_visuals():
    report = failing_report()
    report.visuals = Visuals(worked_example=report.visuals.worked_example)
    doc = parse(render_html(report))
    assert [img["data-kind"] for img in doc.images] == ["heatmap"]
    report.visuals = Visuals()
    assert parse(render_html(report)).images == []


def test_images_decode_as_pngs():
    doc = parse(render_html(failing_report()))
    for img in doc.images:
        png = base64.b64decode(img["src"].split(",", 1)[1])
        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100


def test_failing_report_shows_expected_observed_diagnosis_and_section():
    text = " ".join(parse(render_html(failing_report())).text)
    assert "weights row 0: [1.000000, 0.000000, 0.000000]" in text
    assert "weights row 0: [0.333333, 0.333333, 0.333333]" in text
    assert "Zero instead of -inf in the mask" in text
    assert "Reread: Hide future positions before normalization" in text
    assert "Also possible: Mask applied after softmax" in text
    assert "grey hatching means NaN or inf" in text


def test_student_text_is_escaped():
    html = render_html(failing_report())
    doc = parse(html)
    assert "script" not in doc.tags and "b" not in doc.tags
    text = "".join(doc.text)
    # The printout arrives as text, visible and inert.
    assert "debug <script>alert('x')</script>" in text
    assert "<b>not bold</b>" in text
    assert "&lt;zero-fill&gt;" in html


def test_long_output_is_truncated():
    report = failing_report()
    report.runtime.output = "x" * 50_000
    text = "".join(parse(render_html(report)).text)
    assert "more characters not shown" in text
    assert text.count("x" * 100) < 50_000 // 100


def test_hidden_checks_are_held_back_from_students():
    report = failing_report()
    student = " ".join(parse(render_html(report)).text)
    assert "secret" not in student and "Hidden probe" not in student
    assert "1 hidden check(s) are never shown" in student
    instructor = " ".join(parse(render_html(report, audience="instructor")).text)
    assert "Hidden probe" in instructor and "secret obs" in instructor


def test_correct_submission_gets_praise_and_the_same_pictures():
    doc = parse(render_html(passing_report()))
    text = " ".join(doc.text)
    assert "All 4 checks passed. Nicely done" in text
    assert "What to fix" not in text
    assert len(doc.images) == 3


def test_rendering_is_deterministic_and_small():
    a, b = render_html(failing_report()), render_html(failing_report())
    assert a == b
    assert len(a) < 400_000
    png = base64.b64decode(heatmap_png(failing_report().visuals.worked_example))
    assert b"Software" not in png and b"Date" not in png and b"tIME" not in png


def test_fragment_styles_are_scoped_for_notebooks():
    frag = render_fragment(passing_report())
    doc = parse(frag)
    assert doc.tags[0] == "div"
    css = "".join(doc.styles)
    rules = [r.strip() for r in css.split("}") if r.strip()]
    assert rules and all(r.startswith(".grader-report") for r in rules)


def test_student_without_weights_still_gets_the_correct_picture():
    hm = Heatmap(title="Worked example", student=None, expected=[[1.0, 0.0], [0.5, 0.5]])
    assert base64.b64decode(heatmap_png(hm)).startswith(b"\x89PNG")
    assert base64.b64decode(row_change_png([None, 0.0], None)).startswith(b"\x89PNG")


def test_leaked_cells_are_the_nonzero_forbidden_ones():
    v = failing_report().visuals
    assert leaked_cells(v.worked_example.student) == [(0, 1), (0, 2), (1, 2)]
    assert leaked_cells(v.worked_example.expected) == []
    # NaN above the diagonal is drawn as NaN, not counted as a leak; NaN on/below it likewise.
    assert leaked_cells([[1.0, None], [0.5, 0.5]]) == []


def test_write_html_and_batch_names(tmp_path):
    report = failing_report()
    path = write_html(report, tmp_path / "out" / report_filename("subs/bob/attention.py", ".html"))
    assert path.name == "subs__bob__attention.html"
    assert path.read_text(encoding="utf-8") == render_html(report)
    assert HOSTILE_OUTPUT.splitlines()[0] not in path.read_text(encoding="utf-8")  # escaped, not raw


def test_the_same_numbers_are_drawn_once_and_a_change_is_drawn_anew():
    from grader.report import plots

    hm = Heatmap(title="Worked example", student=[[1.0, 0.0], [0.4, 0.6]], expected=[[1.0, 0.0], [0.5, 0.5]])
    plots._heatmap_png.cache_clear()
    plots._row_change_png.cache_clear()
    first = heatmap_png(hm)
    assert heatmap_png(hm.model_copy(deep=True)) == first and plots._heatmap_png.cache_info().hits == 1
    # One weight changed in the last digit the report keeps: a new picture, not the kept one.
    changed = hm.model_copy(update={"student": [[1.0, 0.0], [0.4000001, 0.5999999]]})
    heatmap_png(changed)
    assert plots._heatmap_png.cache_info().misses == 2
    bars = row_change_png([0.0, 0.25], [0.5, 0.5], "Change only future values")
    assert row_change_png((0.0, 0.25), (0.5, 0.5), "Change only future values") == bars
    assert row_change_png([0.0, 0.25], None, "Change only future values") != bars
    plots._heatmap_png.cache_clear()
    assert heatmap_png(hm) == first  # drawn again from nothing: the same bytes
