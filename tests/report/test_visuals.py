"""The report's pictures read what the checks observed: SDPA is not run a second time for them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from grader.checks.observations import Observations, Reply
from grader.checks.registry import CHECKS
from grader.grade import INSTRUCTOR_RUBRIC, default_rubric
from grader.probes import ProbeSet, build_probes, expected
from grader.report.visuals import visuals
from grader.sandbox import answer_trusted

REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "attention.py"


def observed(probes: ProbeSet) -> Observations:
    frames = answer_trusted(REFERENCE, {p.id: p.call for p in probes.probes})
    return Observations(probes, {pid: Reply.from_frame(f) for pid, f in frames.items()})


def counting_sdpa(monkeypatch) -> list[int]:
    calls = []
    real = expected.attention

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(expected, "attention", counted)
    return calls


def fresh(probes: ProbeSet) -> ProbeSet:
    """The same probes with empty memos (visible probes are shared by the whole process)."""
    return ProbeSet([replace(p) for p in probes.probes])  # a copy: init=False, its memo starts empty


def test_pictures_reuse_what_the_random_probes_check_computed(monkeypatch):
    probes = fresh(build_probes(None))
    obs = observed(probes)
    rubric = default_rubric(INSTRUCTOR_RUBRIC)
    CHECKS["random_probes"].run(obs, lambda d: rubric.tolerance("random_probes", d))
    calls = counting_sdpa(monkeypatch)
    pictures = visuals(obs)
    assert calls == []  # the check's memo served the picture
    rand = probes.by_id["rand.flat.small"]
    want = torch.nn.functional.scaled_dot_product_attention(
        rand.t["q"].double(), rand.t["k"].double(), torch.eye(rand.t["q"].shape[-2], dtype=torch.float64),
        is_causal=True)
    assert torch.allclose(torch.tensor(pictures.random_probe.expected, dtype=torch.float64), want)
    assert pictures.random_probe.student is not None and pictures.leak_row_change is not None


def test_without_the_check_the_picture_computes_it_once(monkeypatch):
    # Negative control: the counter has teeth, and nothing else computes the value behind its back.
    obs = observed(fresh(build_probes(None)))
    calls = counting_sdpa(monkeypatch)
    visuals(obs)
    visuals(obs)
    assert calls == [1]


def _wrong_axis_observed() -> Observations:
    """Replies of a softmax over the receivers (dim=-2): only the future-queries intervention moves it."""
    probes = fresh(build_probes(None))
    replies = {}
    for p in probes.probes:
        if p.call.meta.get("target") != "attention" or p.family == "shape":
            continue
        q, k, v = (p.t[n].double() for n in "qkv")
        T = q.shape[-2]
        s = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(),
                                                                         float("-inf"))
        w = torch.softmax(s, dim=-2)
        replies[p.id] = Reply(True, {"out": w @ v, "weights": w})
    return Observations(probes, replies)


def test_the_leak_picture_shows_the_intervention_the_check_failed_on():
    """Issue 19: a wrong-axis file's picture showed future keys (0.000000) while future queries moved rows by 1.32."""
    pictures = visuals(_wrong_axis_observed())
    assert pictures.leak_intervention == "Change only future queries"
    assert max(x for x in pictures.leak_row_change if x is not None) > 1e-3


def test_the_picture_of_a_correct_file_shows_future_keys_and_values():
    probes = fresh(build_probes(None))
    pictures = visuals(observed(probes))
    assert pictures.leak_intervention == "Change only future keys and values"
    assert max(pictures.leak_row_change) == 0


def test_your_weights_carry_their_row_sums():
    from grader.report.plots import row_sums

    assert row_sums([[1.0, 0.0], [0.25, 0.25]]) == ["1.000", "0.500"]
    assert row_sums([[None, 0.5], []]) == ["NaN", "0.000"]
