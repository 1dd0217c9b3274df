"""Match every receiving position with every source: the scale applied to q . k, read from the
submission's own weights (or fitted to its output).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from grader.diagnosis.evidence.context import PROBE, Context, Facts, number, output, sizes, weights
from grader.probes import RANDOM_BATCH, Probe, expected
from grader.probes.replies import Reply

# ---------------------------------------------------------------- the scale applied to q . k


def implied_scale(q: torch.Tensor, k: torch.Tensor, w: torch.Tensor,
                  gaps: tuple[torch.Tensor, torch.Tensor] | None = None) -> float | None:
    """The factor on q.k that the student's weights imply, from ratios of allowed shares in each row.

    exp(s_ij) / exp(s_i0) = w_ij / w_i0, so each pair of allowed cells gives one estimate of the scale.
    Batched inputs are read slice by slice. Returns None when the estimates disagree (the weights are
    not a row softmax of scaled scores) or are too few. `gaps`: `score_gaps(q, k)`, when already at hand.
    """
    if w.shape[-2:] != (q.shape[-2], q.shape[-2]) or w.shape[:-2] != q.shape[:-2] or not torch.isfinite(w).all():
        return None
    gap, spread = gaps if gaps is not None else score_gaps(q, k)
    w = w.double().reshape(gap.shape)
    first = w[..., :1].expand_as(w)
    usable = spread & (w > 0) & (first > 0)
    estimates = torch.log(w[usable] / first[usable]) / gap[usable]
    n = estimates.numel()
    if n < 3:
        return None
    # The median and the agreement in three tensor operations: the same float64 arithmetic as one
    # Python float at a time (hundreds of estimates on a batched probe), bit for bit.
    mid = float(estimates.sort().values[n // 2])
    return mid if bool(((estimates - mid).abs() <= 1e-6 * max(1.0, abs(mid))).all()) else None


def score_gaps(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What `implied_scale` reads of q and k alone: s_ij - s_i0 per slice, and the cells (i, j) with
    1 <= j <= i (allowed under the mask, not the row's first cell) whose gap is wide enough to read."""
    T = q.shape[-2]
    raw = (q.double() @ k.double().transpose(-2, -1)).reshape(-1, T, T)
    gap = raw - raw[..., :1]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    allowed[:, 0] = False
    return gap, allowed & (gap.abs() > 0.1)


def probe_implied_scale(probe: Probe, w: torch.Tensor) -> float | None:
    """`implied_scale` on a probe's q and k, their part read once per probe (every regrade asks again)."""
    q, k = probe.t["q"], probe.t["k"]
    if w.shape[-2:] != (q.shape[-2], q.shape[-2]) or w.shape[:-2] != q.shape[:-2]:
        return None
    return implied_scale(q, k, w, probe.memo("score_gaps", score_gaps, q, k))


def fit_scale(probe: Probe, reply: Reply) -> float | None:
    """The scale s for which SDPA(scale=s) reproduces the submission's output, if one does."""
    got = output(reply, probe)
    if got is None:
        return None
    got = got.double()
    if not torch.isfinite(got).all():
        return None
    q, k, v = probe.t["q"], probe.t["k"], probe.t["v"]
    # Receiving position 0 may use source 0 alone, so attention at any scale returns v's first row there:
    # an output whose first row is far from it fits no scale (it misses by more than the fit's 1e-6 at
    # every one), and the search below is not needed to say so.
    if got.numel() and float((got[..., 0, :] - v.double()[..., 0, :]).abs().max()) > 1e-3:
        return None

    def error(log_s: float) -> float:
        out, _ = expected.attention(q, k, v, scale=math.exp(log_s))
        return float((out - got).abs().max())

    best = min((i / 20 for i in range(-140, 61)), key=error)  # s from 1e-3 to 20
    lo, hi = best - 0.05, best + 0.05
    for _ in range(40):  # golden-section refinement on log s
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        lo, hi = (lo, b) if error(a) < error(b) else (a, hi)
    s = math.exp((lo + hi) / 2)
    return s if error(math.log(s)) < 1e-6 else None


def probe_scales(ctx: Context) -> dict[str, float]:
    """The scale each visible probe's weights imply (or, failing that, its output fits)."""

    def compute() -> dict[str, float]:
        scales = {}
        for probe, reply in ctx.attention(families=("worked", "rand")):
            w = weights(reply, probe)
            s = probe_implied_scale(probe, w) if w is not None else None
            if s is not None and s > 0:
                scales[probe.id] = s
        if not scales:  # weights unreadable: the output may still name a scale
            probe = ctx.obs.probes.by_id.get(RANDOM_BATCH)
            s = fit_scale(probe, ctx.obs.reply(probe.id)) if probe is not None else None
            if s is not None and s > 0:
                scales[probe.id] = s
        return scales

    return ctx.memo("scales", compute)


# What a scale can correspond to; the first formula true on every probe names it.
SCALE_FORMULAS: tuple[tuple[str, str, object], ...] = (
    ("1/sqrt(d_k)", "dividing by sqrt(d_k)", lambda T, d_k, d_v: 1 / math.sqrt(d_k)),
    ("1", "no scaling at all", lambda T, d_k, d_v: 1.0),
    ("1/d_k", "dividing by d_k instead of its square root", lambda T, d_k, d_v: 1 / d_k),
    ("1/sqrt(d_v)", "dividing by sqrt(d_v), the value width", lambda T, d_k, d_v: 1 / math.sqrt(d_v)),
    ("1/sqrt(T)", "dividing by sqrt(T), the sequence length", lambda T, d_k, d_v: 1 / math.sqrt(T)),
    ("1/d_v", "dividing by d_v, the value width", lambda T, d_k, d_v: 1 / d_v),
    ("1/T", "dividing by T, the sequence length", lambda T, d_k, d_v: 1 / T),
    ("sqrt(d_k)", "multiplying by sqrt(d_k) instead of dividing", lambda T, d_k, d_v: math.sqrt(d_k)),
    ("d_k", "multiplying by d_k", lambda T, d_k, d_v: float(d_k)),
)


@dataclass
class ScaleReading:
    formula: str  # "1/d_k", "constant", "varies"
    means: str  # in words
    probe: Probe  # the probe quoted (one where the scale is wrong)
    scale: float
    right: float

    @property
    def missing(self) -> bool:
        return self.formula == "1"


def read_scale(ctx: Context) -> ScaleReading | None:
    """Name the scale the submission applies, when it is not 1/sqrt(d_k) on every probe."""

    def compute() -> ScaleReading | None:
        scales = probe_scales(ctx)
        by_id = ctx.obs.probes.by_id
        seen = [(by_id[pid], s, sizes(by_id[pid])) for pid, s in scales.items()]
        wrong = [(p, s, z) for p, s, z in seen if not math.isclose(s, 1 / math.sqrt(z["d_k"]), rel_tol=1e-4)]
        if not wrong:
            return None
        probe, s, z = wrong[0]
        right = 1 / math.sqrt(z["d_k"])
        for name, means, f in SCALE_FORMULAS[1:]:
            if all(math.isclose(sc, f(zz["T"], zz["d_k"], zz["d_v"]), rel_tol=1e-4) for _, sc, zz in seen):
                return ScaleReading(name, means, probe, s, right)
        if len({zz["d_k"] for _, _, zz in seen}) > 1 and all(math.isclose(sc, s, rel_tol=1e-4) for _, sc, _ in seen):
            return ScaleReading("constant", f"a constant {number(s)}{as_root(s)} whatever d_k", probe, s, right)
        # No one formula on every input: name the one true at an input where the scale is wrong, and
        # quote an input where that formula does not hold (a size read from a fixed dimension, say).
        for p, sc, zz in wrong:
            name, means = _formula_at(sc, zz)
            if name is None:
                continue
            other = next(((pp, s2, z2) for pp, s2, z2 in seen if _formula_at(s2, z2)[0] != name), None)
            if other is not None:
                _, s2, z2 = other
                means += (f", on that input, though not on every one (at T = {z2['T']}, d_k = {z2['d_k']}, "
                          f"d_v = {z2['d_v']} it is {number(s2)}{as_root(s2)})")
            return ScaleReading("varies", means, p, sc, 1 / math.sqrt(zz["d_k"]))
        return ScaleReading("varies", f"a factor of {number(s)} that is no simple formula in d_k, d_v or T",
                            probe, s, right)

    return ctx.memo("scale", compute)


def _formula_at(scale: float, z: dict[str, int]) -> tuple[str | None, str]:
    """The wrong formula a scale matches at one input's sizes (the first of SCALE_FORMULAS), if any."""
    for name, means, f in SCALE_FORMULAS:
        if math.isclose(scale, f(z["T"], z["d_k"], z["d_v"]), rel_tol=1e-4):
            return (None, "") if name == "1/sqrt(d_k)" else (name, means)
    return None, ""


def worked_constant(reading: ScaleReading) -> bool:
    """A constant scale that is the worked example's own 1/sqrt(2): its d_k written as a number."""
    return reading.formula == "constant" and math.isclose(reading.scale, 1 / math.sqrt(2), rel_tol=1e-4)


def as_root(s: float) -> str:
    """0.176777 -> ' = 1/sqrt(32)' when 1/s^2 is a whole number."""
    n = 1 / (s * s)
    return f" = 1/sqrt({round(n)})" if round(n) >= 1 and math.isclose(n, round(n), rel_tol=1e-4) else ""


def scale_facts(reading: ScaleReading) -> Facts:
    z = sizes(reading.probe)
    ratio = reading.scale / reading.right
    if ratio > 1:
        direction = f"{number(ratio)} times larger than the chapter's, which makes your weights sharper"
    else:
        direction = f"{number(1 / ratio)} times smaller than the chapter's, which makes your weights flatter"
    return {
        "at": f"T = {z['T']}, d_k = {z['d_k']}, d_v = {z['d_v']}",
        "scale": number(reading.scale),
        "means": reading.means,
        "right": number(reading.right),
        "direction": direction,
        PROBE: reading.probe.id,
    }


def wrong_scale(ctx: Context) -> Facts | None:
    reading = read_scale(ctx)
    if reading is None or reading.missing or worked_constant(reading):
        return None
    return scale_facts(reading)


def missing_scale(ctx: Context) -> Facts | None:
    reading = read_scale(ctx)
    return scale_facts(reading) if reading is not None and reading.missing else None
