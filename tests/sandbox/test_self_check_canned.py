"""Issue 25, item 7, in the self-check: canned answers for every public probe score what the untouched stub
scores (the gate's floor adds nothing), in `check` as in `grade`. A self-check has no secret: random probes
drawn from a hash of the file itself stand in for the secret's, so a table of answers cannot hold them."""

from __future__ import annotations

import pytest
from sandbox_kit import REFERENCE, TEST_LIMITS, gallery, needs_namespaces
from support.canned import canned_source

from grader import grade
from grader.paths import ROOT
from grader.probes import SELF_CHECK_FAMILY, self_check_variants
from grader.sandbox import Sandbox

STUB = ROOT / "student_template" / "attention.py"


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        yield sb


def _check(path, sandbox):
    return grade.grade_file(path, sandbox=sandbox, audience="student")


@needs_namespaces
@pytest.mark.parametrize("name", ["canned_answers", "canned_causal_mean"])
def test_canned_answers_score_what_the_stub_scores_in_check(sandbox, tmp_path, monkeypatch, name):
    canned = tmp_path / "canned.py"
    canned.write_text(canned_source(name))
    stub = _check(STUB, sandbox).score
    report = _check(canned, sandbox)
    assert report.score <= stub, {c.id: c.score for c in report.checks if c.score}
    assert "from your file itself" in {c.id: c for c in report.checks}["computes_attention"].feedback
    # The negative control: without the variants the table is right on every probe the self-check makes.
    monkeypatch.setattr(grade, "self_check_variants", lambda source: [])
    assert _check(canned, sandbox).score > stub + 50


@needs_namespaces
@pytest.mark.parametrize("name", ["nan_everywhere", "inf_everywhere"])
def test_nan_everywhere_scores_what_the_stub_scores_in_check(sandbox, name):
    assert _check(gallery(name), sandbox).score <= _check(STUB, sandbox).score


@needs_namespaces
def test_an_honest_file_keeps_full_marks_in_check(sandbox):
    report = _check(REFERENCE, sandbox)
    assert report.score == report.max_score > 0


def test_the_variants_are_hidden_unscored_and_follow_the_file():
    a, b = self_check_variants(b"x = 1\n"), self_check_variants(b"x = 2\n")
    assert a and all(p.hidden and p.family == SELF_CHECK_FAMILY for p in a)
    assert not all((p.t["q"] == r.t["q"]).all() for p, r in zip(a, b, strict=True) if p.t["q"].shape == r.t["q"].shape)
    again = self_check_variants(b"x = 1\n")
    assert all((p.t["q"] == r.t["q"]).all() for p, r in zip(a, again, strict=True))  # the same file, the same report
