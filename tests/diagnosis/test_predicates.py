"""Tensor-level predicates: each reads one bug from weights alone, and stays silent on correct ones."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from grader.checks.observations import Reply
from grader.diagnosis import evidence as ev
from grader.probes import expected

torch.manual_seed(0)
Q, K, V = (torch.randn(5, d, dtype=torch.float64) for d in (4, 4, 3))


def softmax_rows(scores: torch.Tensor, allowed: torch.Tensor, fill: float = float("-inf")) -> torch.Tensor:
    return torch.softmax(scores.masked_fill(~allowed, fill), dim=-1)


TRIL = torch.ones(5, 5, dtype=torch.bool).tril()
SCORES = Q @ K.T / 2.0


# ---------------------------------------------------------------- mask_shape


def test_correct_weights_show_no_mask_bug():
    assert ev.mask_shape(expected.attention(Q, K, V)[1]) == []


@pytest.mark.parametrize(("allowed", "name"), [
    (torch.ones(5, 5, dtype=torch.bool).tril(1), "future_offset"),
    (torch.ones(5, 5, dtype=torch.bool).triu(), "wrong_mask_direction"),
    (torch.ones(5, 5, dtype=torch.bool), "no_mask"),
])
def test_mask_shape_reads_the_allowed_pattern(allowed, name):
    assert ev.mask_shape(softmax_rows(SCORES, allowed)) == [name]


def _every_misplaced_mask(T: int) -> list[tuple[str, torch.Tensor]]:
    """The mask bugs' allowed patterns, every one written out: the oracle for the matcher that reads
    only a pattern's outermost diagonal."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return ([("future_offset", ones.tril(d)) for d in range(1, T - 1)]
            + [("wrong_mask_direction", ones.triu(d)) for d in range(0, T)]
            + [("diagonal_excluded", ones.tril(-d)) for d in range(1, T)])


def _named_by_oracle(nonzero: torch.Tensor) -> str | None:
    return next((name for name, allowed in _every_misplaced_mask(nonzero.shape[0]) if torch.equal(nonzero, allowed)),
                None)


@pytest.mark.parametrize("T", [3, 4, 5, 8, 40])
def test_the_misplaced_mask_matcher_names_what_every_pattern_written_out_names(T):
    ones = torch.ones(T, T, dtype=torch.bool)
    patterns = [allowed for _, allowed in _every_misplaced_mask(T)]
    patterns += [ones.tril(d) for d in range(-T, T + 1)] + [ones.triu(d) for d in range(-T, T + 1)]
    g = torch.Generator().manual_seed(T)
    for allowed in list(patterns):  # each pattern with one cell flipped: near misses name nothing, or another
        cell = torch.randint(0, T * T, (1,), generator=g).item()
        near = allowed.clone().flatten()
        near[cell] = ~near[cell]
        patterns.append(near.reshape(T, T))
    patterns += [torch.rand(T, T, generator=g) < 0.5 for _ in range(20)]
    for nonzero in patterns:
        found = ev.mask._misplaced_mask(nonzero)
        assert (found[0] if found else None) == _named_by_oracle(nonzero)
        if found is not None:
            assert torch.equal(found[1], nonzero)


def test_mask_shape_reads_a_zero_fill_whatever_the_scale():
    for scale in (1.0, 0.5, 0.1):
        assert ev.mask_shape(softmax_rows(Q @ K.T * scale, TRIL, fill=0.0)) == ["zero_fill_mask"]


def test_mask_shape_reads_masking_after_softmax():
    w = torch.softmax(SCORES, dim=-1).masked_fill(~TRIL, 0.0)
    assert ev.mask_shape(w) == ["mask_after_softmax"]


def test_mask_shape_reads_an_excluded_diagonal():
    w = softmax_rows(SCORES, torch.ones(5, 5, dtype=torch.bool).tril(-1))
    assert torch.isnan(w[0]).all()
    assert ev.mask_shape(w) == ["diagonal_excluded"]


def test_mask_shape_reads_two_bugs_at_once():
    w = torch.softmax(SCORES.masked_fill(~TRIL, 0.0), dim=-2)
    assert ev.mask_shape(w) == ["softmax_wrong_axis", "zero_fill_mask"]


# ---------------------------------------------------------------- the fill value a zero-fill used


@pytest.mark.parametrize("fill", [0.0, -1.0, -3.5, 2.0])
def test_zero_fill_value_is_read_back(fill):
    probe = SimpleNamespace(t={"q": Q, "k": K, "v": V})
    w = softmax_rows(SCORES, TRIL, fill=fill)
    assert ev.zero_fill_value(probe, w, 0.5) == pytest.approx(fill, abs=1e-9)


# ---------------------------------------------------------------- the scale on q . k


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.25, 1 / math.sqrt(3), 2.0])
def test_implied_scale_reads_the_factor_from_share_ratios(scale):
    w = softmax_rows(Q @ K.T * scale, TRIL)
    assert ev.implied_scale(Q, K, w) == pytest.approx(scale, rel=1e-9)


def test_implied_scale_reads_batched_weights():
    q, k, v = (torch.randn(2, 3, 5, d, dtype=torch.float64) for d in (4, 4, 3))
    _, w = expected.attention(q, k, v, scale=0.3)
    assert ev.implied_scale(q, k, w) == pytest.approx(0.3, rel=1e-9)


def test_implied_scale_refuses_weights_that_are_no_row_softmax():
    w = torch.softmax((Q @ K.T).masked_fill(~TRIL, float("-inf")), dim=-2)
    assert ev.implied_scale(Q, K, w) is None


def _implied_scale_as_floats(q, k, w):
    """The estimates' median and agreement read one Python float at a time: what implied_scale must equal."""
    T = q.shape[-2]
    raw = (q.double() @ k.double().transpose(-2, -1)).reshape(-1, T, T)
    w = w.double().reshape(raw.shape)
    gap, first = raw - raw[..., :1], w[..., :1].expand_as(w)
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    allowed[:, 0] = False
    usable = allowed & (w > 0) & (first > 0) & (gap.abs() > 0.1)
    estimates = (torch.log(w[usable] / first[usable]) / gap[usable]).tolist()
    if len(estimates) < 3:
        return None
    mid = sorted(estimates)[len(estimates) // 2]
    return mid if all(abs(e - mid) <= 1e-6 * max(1.0, abs(mid)) for e in estimates) else None


@pytest.mark.parametrize("seed", range(6))
def test_implied_scale_is_exactly_the_float_by_float_reading(seed):
    """Every value the per-float reading gives (a scale, a near miss at the 1e-6 agreement, an infinite
    estimate from a vanishing first share), bit for bit."""
    gen = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(3, 6, 4, generator=gen, dtype=torch.float64) for _ in range(2))
    tril = torch.ones(6, 6, dtype=torch.bool).tril()
    cases = [torch.softmax((q @ k.transpose(-2, -1) * 0.7).masked_fill(~tril, float("-inf")), -1)]
    jitter = cases[0] * (1 + torch.randn(cases[0].shape, generator=gen, dtype=torch.float64) * 10.0 ** -(seed + 4))
    cases.append(jitter)
    tiny = cases[0].clone()
    tiny[0, 3, 0] = 1e-320  # subnormal: its ratios overflow to inf
    cases.append(tiny)
    for w in cases:
        want, got = _implied_scale_as_floats(q, k, w), ev.implied_scale(q, k, w)
        assert (want is None and got is None) or want == got, (want, got)


def test_fit_scale_recovers_the_scale_from_outputs():
    probe = SimpleNamespace(t={"q": Q, "k": K, "v": V})
    reply = Reply(True, dict(zip(("out", "weights"), expected.attention(Q, K, V, scale=0.2), strict=True)))
    assert ev.fit_scale(probe, reply) == pytest.approx(0.2, rel=1e-5)


# ---------------------------------------------------------------- which axis was normalised


def test_normalised_axes_of_correct_weights_is_the_source_axis():
    q, k, v = (torch.randn(2, 3, 5, d, dtype=torch.float64) for d in (4, 4, 3))
    assert ev.normalised_axes(expected.attention(q, k, v)[1]) == [-1]


def test_normalised_axes_sees_softmax_over_receivers_and_over_heads():
    q, k = torch.randn(2, 3, 5, 4, dtype=torch.float64), torch.randn(2, 3, 5, 4, dtype=torch.float64)
    scores = (q @ k.transpose(-2, -1)).masked_fill(~TRIL, float("-inf"))
    assert ev.normalised_axes(torch.softmax(scores, dim=-2)) == [-2]
    assert ev.normalised_axes(torch.softmax(scores, dim=1)) == [-3]  # heads: NaN where every head is -inf


@pytest.mark.parametrize(("allowed", "name"), [
    (torch.ones(5, 5, dtype=torch.bool).tril(2), "future_offset"),  # two places too late
    (torch.ones(5, 5, dtype=torch.bool).tril(-2), "diagonal_excluded"),  # two NaN rows
    (torch.ones(5, 5, dtype=torch.bool).triu(1), "wrong_mask_direction"),  # strictly future: last row NaN
])
def test_mask_shape_reads_shifted_and_empty_rows(allowed, name):
    assert ev.mask_shape(softmax_rows(SCORES, allowed)) == [name]


def test_how_far_ahead_a_mask_sees():
    assert ev.future_offset(softmax_rows(SCORES, torch.ones(5, 5, dtype=torch.bool).tril(2))) == 2
    assert ev.future_offset(expected.attention(Q, K, V)[1]) == 0


def test_sums_to_one_is_allclose_to_one_even_at_its_edge():
    """mask_shape's row-sum test reads as torch.allclose(sums, 1, atol=SUM_ATOL) does, NaN, inf and the edge included."""
    edge = ev.SUM_ATOL + 1e-5
    values = [1.0, float("nan"), float("inf"), -float("inf"), 0.0, 2.0]
    for x in (1 + edge, 1 - edge):
        values += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]
    g = torch.Generator().manual_seed(1)
    values += (1 + (torch.rand(2000, generator=g, dtype=torch.float64) - 0.5) * 4 * edge).tolist()
    for x in values:
        t = torch.tensor([x], dtype=torch.float64)
        assert ev.mask._sum_to_one(t) == torch.allclose(t, torch.ones_like(t), atol=ev.SUM_ATOL), x


@pytest.mark.parametrize("seed", range(4))
def test_implied_scale_of_a_probe_reads_its_scores_once_and_agrees_bit_for_bit(seed):
    """The probe's part (q . k and which cells are usable) is the same on every regrade: read once per probe."""
    from grader.probes import visible_probes

    probe = [p for p in visible_probes() if p.family == "rand"][seed]
    q, k, v = probe.t["q"], probe.t["k"], probe.t["v"]
    for scale in (0.3, 1 / math.sqrt(q.shape[-1]), 1.0):
        _, w = expected.attention(q, k, v, scale=scale)
        assert ev.probe_implied_scale(probe, w) == ev.implied_scale(q, k, w)
    assert "score_gaps" in probe._memo
    assert ev.probe_implied_scale(probe, torch.ones(1, 1)) is None  # weights of the wrong shape


def test_the_attention_probes_a_reader_asks_for_are_selected_once_per_submission():
    """Dozens of readers ask for the same families on every regrade: the probes are walked once per family set."""
    from grader.probes import build_probes

    probes, asked = build_probes(), []
    obs = SimpleNamespace(probes=probes, reply=lambda pid: asked.append(pid) or pid)
    ctx = ev.Context(obs, {})
    first = list(ctx.attention(families=("rand",)))
    assert first and list(ctx.attention(families=("rand",))) == first
    assert len(asked) == len(first)  # the second call read nothing again
    assert [p.id for p, _ in first] == [p.id for p in probes.probes if p.family == "rand" and not p.hidden
                                         and p.target == "attention"]
    assert len(list(ctx.attention())) > len(first)
