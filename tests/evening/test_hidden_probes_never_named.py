"""Item 9 of issue 19: probes are named in words, and no hidden probe's id, length or family reaches
any text a student reads: terminal, markdown, HTML, the notebook's fragment, Gradescope's output."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from grader.grade import grade_file
from grader.paths import ROOT
from grader.probes import HIDDEN_LENGTHS, VISIBLE_LENGTHS, build_probes, describe, hidden_seed
from grader.report.gradescope import to_gradescope
from grader.report.html import render_fragment, render_html
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal

SECRET = "evening-secret"
MUTANTS = ["zero_fill_mask", "hardcoded_shape", "batch_mixing", "softmax_wrong_axis", "dtype_downcast",
           "wrong_mask_direction", "unstable_softmax", "detached_graph", "inputs_mutated"]


def _student_texts(report) -> dict[str, str]:
    texts = {}
    for published in (False, True):
        buf = io.StringIO()
        render_terminal(report, console=Console(file=buf, width=160), audience="student")
        texts["terminal"] = buf.getvalue()
        texts[f"markdown {published}"] = render_markdown(report, audience="student", published=published)
        texts[f"html {published}"] = render_html(report, audience="student", published=published)
        texts[f"notebook {published}"] = render_fragment(report, audience="student", published=published)
    results = to_gradescope(report)
    # What a student sees on Gradescope: the top-level output and the visible tests.
    texts["gradescope"] = "\n".join([results.output, *(t.output for t in results.tests if t.visibility == "visible")])
    return texts


@pytest.mark.parametrize("mutant", MUTANTS)
def test_no_hidden_probe_reaches_a_student(sandbox, mutant):
    path = ROOT / "reference" / "mutants" / f"{mutant}.py"
    report = grade_file(path, sandbox=sandbox, secret=SECRET)  # the instructor's run: hidden probes included
    hidden = [p for p in build_probes(hidden_seed(SECRET, path.read_bytes())).probes if p.hidden]
    assert hidden
    ids = sorted({p.id for p in hidden}, key=len, reverse=True)
    tags = [f"T{T}." for T in HIDDEN_LENGTHS if T not in VISIBLE_LENGTHS]
    # Lengths only hidden probes have (the visible ones include the head's T = 4 and the long T = 40).
    shown = {p.t.get("q", p.t.get("x")).shape[-2] for p in build_probes(None).probes
             if p.t.get("q", p.t.get("x")) is not None and p.t.get("q", p.t.get("x")).dim() >= 2}
    unseen_lengths = [T for T in HIDDEN_LENGTHS if T not in shown]
    assert unseen_lengths
    for where, text in _student_texts(report).items():
        for pid in ids:
            assert not re.search(rf"(?<![\w.]){re.escape(pid)}(?![\w])", text), (mutant, where, pid)
        for tag in tags:
            assert tag not in text, (mutant, where, tag)
        for T in unseen_lengths:
            for said in (f"{T}-position", f"T = {T}", f"of {T} positions", f"T={T}"):
                assert said not in text, (mutant, where, said)
        assert not re.search(r"\bprobe (we|rand|leak|shift|grad|f32|shape|head)\b", text), (mutant, where)


def test_probes_are_described_in_words():
    probes = build_probes(123).by_id
    assert describe(probes["we"]) == "the worked example"
    assert describe(probes["rand.batch.sharp"]).startswith("a batch of ")
    hidden = next(p for p in probes.values() if p.hidden)
    said = describe(hidden)
    assert hidden.id not in said and not re.search(r"\d", said)
