"""The mutation corpus itself is sound: frozen, large enough, and every operator's claim is true.

An operator that calls its mutants equivalent must produce code that behaves exactly like the base;
one that calls them mutants must produce code that differs on some input. Otherwise the accuracy
targets would reward or punish the grader for something no grader could see.
"""

from __future__ import annotations

import pytest


def test_generator_reproduces_the_frozen_lock(mutate, mutants):
    assert mutate.LOCK.read_text().splitlines() == mutate.lock_lines(mutants), (
        "the generator's output changed; if on purpose, rerun `python tests/accuracy/mutate.py --lock`"
        " in its own commit that says why")


def test_corpus_size(mutants):
    equivalents = [m for m in mutants if m.equivalent]
    assert len(mutants) >= 100
    assert len(equivalents) >= 20
    assert len({m.operator for m in mutants if not m.equivalent}) >= 20


def test_expected_ids_are_catalogued(mutants):
    from grader.diagnosis.misconceptions import MISCONCEPTIONS

    assert {m.expected for m in mutants if m.expected} <= set(MISCONCEPTIONS)
    assert all(m.expected is None for m in mutants if m.equivalent)


@pytest.fixture(scope="module")
def base_behaviour(mutate, behaviour):
    return behaviour.observe(behaviour.load(mutate.BASE.read_text(), "accuracy_base"))


def test_each_operator_claim_holds(mutants, behaviour, base_behaviour):
    wrong = []
    for m in mutants:
        diff = behaviour.differences(base_behaviour, behaviour.observe(behaviour.load(m.source, m.name)))
        if m.equivalent and diff:
            wrong.append(f"{m.name} claims equivalence but differs on {diff}")
        if not m.equivalent and not diff:
            wrong.append(f"{m.name} claims a difference but behaves like the base on every probe")
    assert wrong == []


def test_the_claim_check_has_teeth(mutants, behaviour, base_behaviour):
    # Negative control: a known non-equivalent mutant is told apart, a known equivalent is not.
    by_name = {m.name: m for m in mutants}
    zero_fill = by_name["fill_finite__zero"]
    einsum = by_name["eq_scores_form__einsum"]
    assert behaviour.differences(base_behaviour, behaviour.observe(behaviour.load(zero_fill.source, "zf")))
    assert not behaviour.differences(base_behaviour, behaviour.observe(behaviour.load(einsum.source, "es")))
