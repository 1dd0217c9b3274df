"""The grader on the mutation corpus: issue 11's targets, and every mutant and rewrite one by one.

KNOWN_WRONG lists what today's grader gets wrong, each with its cause: strict xfails, so a fix that
makes an entry pass fails the suite until the entry is removed. The corpus (tests/accuracy/mutants.lock)
is frozen; never change an operator's declaration to make a case pass.
"""

from __future__ import annotations

import pytest

KNOWN_WRONG = {"mutant_name": {}, "expected_name": {}, "equivalent_name": {}}


def test_non_equivalent_mutant_loses_points(mutant_name, mutant_verdicts):
    verdict = mutant_verdicts[mutant_name]
    assert verdict.killed, verdict


def test_expected_misconception_named_first(expected_name, mutant_verdicts):
    verdict = mutant_verdicts[expected_name]
    assert verdict.expected_first, verdict


def test_equivalent_rewrite_full_marks_and_no_diagnosis(equivalent_name, mutant_verdicts):
    verdict = mutant_verdicts[equivalent_name]
    assert not verdict.false_alarm, verdict


@pytest.fixture(scope="module")
def summary(mutant_verdicts, verdicts):
    return verdicts.summarise(list(mutant_verdicts.values()), {})


def test_target_kill_rate(summary, verdicts):
    assert summary.kill_rate >= verdicts.TARGETS["kill_rate"], summary


def test_target_no_false_alarm(summary):
    assert summary.false_alarms == 0, summary


def test_target_expected_id_first(summary, verdicts):
    assert summary.first_rate >= verdicts.TARGETS["first_rate"], summary
