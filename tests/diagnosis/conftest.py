"""Fixtures for the diagnosis: observations built in-process from small trusted functions, and a sandbox.

`observe(impl)` runs `impl(q, k, v)` on every visible attention probe, exactly as the sandbox's
runner would report it (errors by type name, inputs after the call), so a predicate can be tested
on a tensor-level bug in a few milliseconds.
"""

from __future__ import annotations

import math

import pytest
import torch

from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations, Reply
from grader.diagnosis.catalogue import Catalogue
from grader.diagnosis.engine import diagnose
from grader.probes import build_probes


def _attention(q, k, v, *, scale=None, fill=float("-inf"), dim=-1, mask=None):
    """Causal attention with one knob turned: the bugs under test are written with these."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    T = q.shape[-2]
    allowed = torch.ones(T, T, dtype=torch.bool).tril() if mask is None else mask(T)
    scores = (q @ k.transpose(-2, -1)) * scale
    weights = torch.softmax(scores.masked_fill(~allowed, fill), dim=dim)
    return weights @ v, weights


def _validated(q, k, v) -> None:
    """The contract's shape rules, so that a bug under test is the only bug."""
    if min(q.dim(), k.dim(), v.dim()) < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] \
            or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")


def _reply(impl, probe, validate: bool) -> Reply:
    q, k, v = (probe.t[n].clone() for n in "qkv")
    try:
        if validate:
            _validated(q, k, v)
        out, weights = impl(q, k, v)
    except Exception as exc:  # noqa: BLE001 - reported as the runner reports it
        return Reply(False, error_type=type(exc).__name__, error=str(exc))
    return Reply(True, {"out": out, "weights": weights, "q_after": q, "k_after": k, "v_after": v})


@pytest.fixture
def attention():
    """causal attention with one knob turned (scale, fill, softmax dim, mask): bugs are written with it."""
    return _attention


@pytest.fixture
def observe():
    def build(impl, *, validate: bool = True,
              source: str = "def causal_attention(q, k, v): ...\nclass SingleHead: ...\n") -> Observations:
        """Replies of impl on the visible probes; shapes are validated first unless validate=False."""
        probes = build_probes(None)
        replies = {p.id: _reply(impl, p, validate) for p in probes.probes if p.call.meta["target"] == "attention"}
        return Observations(probes, replies, source=source)

    return build


@pytest.fixture
def names():
    """The ids diagnose() names for some observations, with one failing check to make it look."""

    def run(obs: Observations, outcomes: dict | None = None, lost: dict | None = None) -> list[str]:
        outcomes = outcomes or {"some_check": CheckOutcome("failed", 0, 1, "")}
        return [d.id for d in diagnose(obs, outcomes, Catalogue(), lost=lost)]

    return run


@pytest.fixture
def messages():
    def run(obs: Observations, outcomes: dict | None = None) -> dict[str, str]:
        outcomes = outcomes or {"some_check": CheckOutcome("failed", 0, 1, "")}
        return {d.id: d.message for d in diagnose(obs, outcomes, Catalogue())}

    return run


