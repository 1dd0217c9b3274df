"""Item 1 of issue 19: the headline is the costliest bug in code the student wrote. A function still
raising NotImplementedError is a TO DO line, never the diagnosis over a bug in written code; the
headline's own numbers reach the terminal; every failing check gets a line there."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from grader.grade import self_check
from grader.report.terminal import render_terminal
from grader.report.view import costliest_first, needs_work

# Bugs a student writes in causal_attention while SingleHead is still the stub, and the diagnosis each is.
WRITTEN = ["zero_fill_mask", "wrong_scale", "missing_scale", "softmax_wrong_axis", "mask_after_softmax",
           "wrong_mask_direction", "no_shape_validation"]


def _terminal(report) -> str:
    buf = io.StringIO()
    render_terminal(report, console=Console(file=buf, width=120), audience="student")
    return buf.getvalue()


@pytest.mark.parametrize("mutant", WRITTEN)
def test_the_bug_just_written_headlines_over_the_stub(sandbox, evening, tmp_path, mutant):
    report = self_check(evening(mutant), sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    ids = [d.id for d in report.diagnoses]
    assert ids and ids[0] == mutant, ids
    assert "not_implemented" not in ids[:-1], ids  # the stub, if named at all, comes last
    out = _terminal(report)
    top = report.diagnoses[0]
    assert f"Diagnosis: {top.title}" in out and top.message.split(". ")[0] in out  # its file's facts, printed
    assert "Diagnosis: Not implemented yet" not in out
    assert "SingleHead still raises NotImplementedError" in out  # the TO DO line stays


def test_the_untouched_template_is_still_told_what_to_write(sandbox, tmp_path):
    from grader.paths import ROOT

    report = self_check(ROOT / "reference" / "mutants" / "not_implemented.py", sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    assert [d.id for d in report.diagnoses] == ["not_implemented"]


def test_every_failing_check_gets_a_line_in_the_terminal(sandbox, evening, tmp_path):
    """Found by a student: three checks were spelled out and '2 more check(s) need work'; the 16-point
    leak check was one of those never named."""
    report = self_check(evening("zero_fill_mask"), sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    out = _terminal(report)
    failing = needs_work(report.checks)
    assert len(failing) > 3
    table_rows = [line for line in out.splitlines() if line.startswith("  FAILED")]
    for c in failing:
        # a line of its own besides its row in the table: its section or its one-line summary
        assert sum(c.title in line for line in out.splitlines() if line not in table_rows) >= 1, (c.title, out)
    assert "more check(s) need work" not in out


def test_the_costliest_checks_are_spelled_out_first(sandbox, evening, tmp_path):
    report = self_check(evening("zero_fill_mask"), sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    out = _terminal(report)
    leak = next(c for c in report.checks if c.id == "leak_intervention")
    shift = next(c for c in report.checks if c.id == "shift_invariance")
    assert leak.max_score - leak.score > shift.max_score - shift.score
    assert out.index(f"FAILED: {leak.title}") < out.index(shift.title, out.index("FAILED: "))


def test_the_untouched_head_stub_beside_right_code_is_a_to_do_line_only(sandbox, evening, tmp_path):
    """The journey corpus (tests/journey, steps 5, 8, ...): causal_attention right, SingleHead the
    template's stub: nothing to diagnose, the TO DO line says what is left."""
    from grader.diagnosis.catalogue import REFERENCE

    report = self_check(evening("right", source=REFERENCE.read_text()), sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    assert report.diagnoses == []
    out = _terminal(report)
    assert "Diagnosis:" not in out and "SingleHead still raises NotImplementedError" in out
    assert "Start with the diagnosis below" not in out


def test_a_head_begun_but_not_finished_is_named(sandbox, evening, tmp_path):
    """The journey's step 30: __init__ written, forward still the stub: that is the headline."""
    from grader.diagnosis.catalogue import REFERENCE

    source = REFERENCE.read_text()
    call = next(line for line in source.splitlines() if "causal_attention(self." in line)
    begun = source.replace(call, call.split("return")[0] + 'raise NotImplementedError("forward")')
    report = self_check(evening("begun", head_stub=False, source=begun), sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    assert [d.id for d in report.diagnoses] == ["not_implemented"]


def test_one_finding_shared_by_many_checks_is_one_line(sandbox, evening, tmp_path):
    """The journey's step 28: a NameError on every call made a dozen lines saying the same."""
    from grader.diagnosis.catalogue import REFERENCE

    source = REFERENCE.read_text().replace("masked_fill(~allowed", "masked_fill(~alowed")
    report = self_check(evening("typo", source=source), sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    lines = [line for line in _terminal(report).splitlines() if "alowed" in line]
    rest = [line for line in lines if line.startswith(("ERROR: ", "FAILED: "))]  # the one-line summaries
    findings = [line.rsplit(": Not credited", 1)[-1].rsplit(": Could not run", 1)[-1] for line in rest]
    assert rest and len(findings) == len(set(findings)), rest  # each finding said once
    summarised = [c for c in costliest_first(report.checks)[3:]]
    assert len(rest) < len(summarised) / 2, rest  # the checks one finding stopped share its line
