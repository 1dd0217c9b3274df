"""One declaration per misconception, and the engine derives everything from the declarations."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest

from grader.checks.base import CheckOutcome
from grader.diagnosis import misconceptions as mc
from grader.diagnosis.catalogue import MUTANTS, Catalogue, parse_docstring
from grader.diagnosis.engine import diagnose
from grader.grade import INSTRUCTOR_RUBRIC, default_rubric
from grader.paths import ROOT


def chapter_headings() -> set[str] | None:
    for candidate in (os.environ.get("GRADER_CHAPTER", ""), ROOT / "chapter" / "self-attention.md",
                      "/work/shared/chapter/self-attention.md"):
        if candidate and Path(candidate).is_file():
            text = Path(candidate).read_text(encoding="utf-8")
            return {m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}
    return None


def test_ids_are_unique_and_every_evidence_kind_is_known():
    assert len(mc.MISCONCEPTIONS) == len(mc.DECLARED)
    for m in mc.DECLARED:
        assert m.evidence and m.title and m.says, m.id
        assert list(m.evidence) == sorted(m.evidence, key=lambda e: mc.STRENGTH[e.kind]), f"{m.id}: strongest first"


@pytest.mark.parametrize("m", mc.DECLARED, ids=lambda m: m.id)
def test_each_declaration_names_a_chapter_section(m):
    headings = chapter_headings()
    if headings is None:
        pytest.skip("chapter not found; set GRADER_CHAPTER")
    assert m.section in headings


def test_costs_name_real_checks():
    checks = set(default_rubric(INSTRUCTOR_RUBRIC).check_ids)
    for m in mc.DECLARED:
        assert m.costs == mc.ALL or set(m.costs) <= checks, m.id


@pytest.mark.parametrize("path", sorted(MUTANTS.glob("*.py")), ids=lambda p: p.stem)
def test_each_mutant_illustrates_a_declared_misconception(path):
    doc = parse_docstring(path)
    m = mc.MISCONCEPTIONS[doc["diagnosis"]]
    assert path.stem == m.id and doc["section"] == m.section
    # Only behaviour mutants are run to take a fingerprint; the others never load or never end.
    assert m.fingerprinted == (doc["kind"] == "behaviour"), m.id


def test_a_toy_diagnosis_is_one_declaration(observe, attention):
    """Adding a diagnosis: one declaration, no mutant file, no catalogue entry, no engine edit."""
    toy = mc.Misconception(
        "toy_scale_half", "Halves the scale", mc.MATCH,
        (mc.behaviour(lambda ctx: {"n": str(len(ctx.obs.replies))}),),
        "Read from {n} replies.", "Toys explain themselves.",
    )
    declared = mc.MISCONCEPTIONS | {toy.id: toy}
    obs = observe(lambda q, k, v: attention(q, k, v))
    found = diagnose(obs, {"any": CheckOutcome("failed", 0, 1, "")}, Catalogue(), declared=declared)
    assert [d.id for d in found] == ["toy_scale_half"]
    assert found[0].message == f"Read from {len(obs.replies)} replies. Toys explain themselves."
    assert found[0].section == mc.MATCH and found[0].title == "Halves the scale"


def test_a_predicate_finding_is_kept_without_any_fingerprint(observe, attention, names):
    """A scale nobody catalogued, with an empty catalogue: the predicate alone names it."""
    assert names(observe(lambda q, k, v: attention(q, k, v, scale=0.3 / math.sqrt(q.shape[-1])))) == ["wrong_scale"]


def test_a_message_without_its_facts_keeps_only_the_true_part():
    from grader.diagnosis.engine import Finding, message

    m = mc.MISCONCEPTIONS["zero_fill_mask"]
    assert message(Finding(m, "behaviour", {})) == m.explains
    text = message(Finding(m, "fingerprint", {}))
    assert "{" not in text and text.endswith(m.explains)
