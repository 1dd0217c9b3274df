"""The guard: a message whose facts its own evidence contradicts is never printed.

Negative controls forge one fact of a real finding (a scale that is the chapter's, a row the file did
not return, a line the file does not have) and see the guard refuse it; the unforged finding is kept.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from grader.checks.base import CheckOutcome
from grader.diagnosis import claims
from grader.diagnosis import misconceptions as mc
from grader.diagnosis.catalogue import Catalogue
from grader.diagnosis.engine import diagnose
from grader.diagnosis.evidence import PROBE

FAILED = {"some_check": CheckOutcome("failed", 0, 1, "")}


def forged(mid: str, **lies: str) -> dict[str, mc.Misconception]:
    """The declarations with one misconception's reader replaced by one that lies about some facts."""
    m = mc.MISCONCEPTIONS[mid]
    real = next(e.read for e in m.evidence if e.read is not None)

    def lying(ctx):
        facts = real(ctx)
        return None if facts is None else facts | lies

    return mc.MISCONCEPTIONS | {mid: dataclasses.replace(m, evidence=(mc.behaviour(lying),))}


def found(obs, declared=mc.MISCONCEPTIONS) -> list[str]:
    return [d.id for d in diagnose(obs, FAILED, Catalogue(), declared=declared)]


def test_a_scale_the_file_does_not_have_is_refused(observe, attention):
    obs = observe(lambda q, k, v: attention(q, k, v, scale=1 / q.shape[-1]))
    assert found(obs) == ["wrong_scale"]  # the positive control: the true finding is printed
    assert "wrong_scale" not in found(obs, forged("wrong_scale", scale="0.707107"))  # the chapter's own scale
    assert "wrong_scale" not in found(obs, forged("wrong_scale", scale="0.4"))  # a scale it does not use


def test_a_weight_row_the_file_did_not_return_is_refused(observe, attention):
    obs = observe(lambda q, k, v: attention(q, k, v, fill=0.0))
    assert "zero_fill_mask" in found(obs)
    assert "zero_fill_mask" not in found(obs, forged("zero_fill_mask", row0="[1.000000, 0.000000, 0.000000]"))


def test_a_leak_claimed_of_a_causal_file_is_refused(observe, attention):
    """The mask reader pointed at the worked example of a file whose mask is right: no share is leaked."""
    right = observe(lambda q, k, v: attention(q, k, v, scale=1 / q.shape[-1]))
    m = mc.MISCONCEPTIONS["no_mask"]
    lying = dataclasses.replace(m, evidence=(mc.behaviour(
        lambda ctx: {"where": "the worked example", "row0": "[1.000000, 0.000000, 0.000000]", PROBE: "we"}),))
    assert "no_mask" not in found(right, mc.MISCONCEPTIONS | {"no_mask": lying})


def test_a_line_the_file_does_not_have_is_refused(observe):
    source = "import torch\n\ndef causal_attention(q, k, v):\n    return out\n"

    def raising(q, k, v):
        raise NameError("name 'out' is not defined")

    obs = observe(raising, source=source)
    for reply in obs.replies.values():
        reply.where = " at line 4 (`return out`)"
    assert found(obs)[:1] == ["call_raises"]
    for reply in obs.replies.values():
        reply.where = " at line 3 (`return out`)"  # line 3 is the def line
    assert "call_raises" not in found(obs)


def test_every_claim_a_declaration_names_is_a_claim_and_no_template_prints_the_probe():
    for m in mc.DECLARED:
        assert all(isinstance(c, claims.Premise) and c.asserts for c in m.claims), m.id
        assert "{" + PROBE + "}" not in m.says and PROBE not in m.explains, m.id


@pytest.mark.parametrize("scale", [0.5, 0.3, 2.0])
def test_a_true_scale_finding_passes_the_guard(observe, attention, scale):
    obs = observe(lambda q, k, v: attention(q, k, v, scale=scale / math.sqrt(q.shape[-1])))
    assert found(obs)[0] in ("wrong_scale", "missing_scale", "hardcoded_shape")
