"""Hide future positions before normalization: the mask, read from where the shares are zero."""

from __future__ import annotations

import functools
import math

import torch

from grader.checks.observations import fmt
from grader.diagnosis.evidence.context import PROBE, SUM_ATOL, Context, Facts, first_slice, number, weights
from grader.diagnosis.evidence.scale import probe_scales
from grader.probes import Probe, describe

# ---------------------------------------------------------------- the mask, read from where shares are zero


def mask_shape(w: torch.Tensor) -> list[str]:
    """Name the misconceptions a weight matrix's pattern of non-zero cells shows, whatever the scores were.

    Robust to other bugs (a missing scale, say): it reads only where shares are zero and how rows sum.
    """
    if w.dim() != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 3:
        return []
    w = w.double()
    T = w.shape[0]
    ones = torch.ones(T, T, dtype=torch.bool)
    # A row with no allowed source at all is NaN (softmax of all -inf), or zeros if the code cleaned it.
    finite = torch.isfinite(w)
    empty = ~finite.all(-1)
    some_empty = bool(empty.any())
    nonzero = (w != 0) & ~empty[:, None] if some_empty else w != 0
    if some_empty and not finite[~empty].all():
        return []
    misplaced = _misplaced_mask(nonzero)
    if misplaced is not None:
        name, allowed = misplaced
        if bool((empty <= ~allowed.any(-1)).all()):
            return [name]
    if some_empty:
        return []
    rows_one, cols_one = _sum_to_one(w.sum(-1)), _sum_to_one(w.sum(-2))
    found = ["softmax_wrong_axis"] if cols_one and not rows_one else []
    if torch.equal(nonzero, ones.tril()):
        rows = w.sum(-1)
        if not cols_one and bool((rows < 1 - SUM_ATOL)[:-1].all()) and abs(float(rows[-1]) - 1) < SUM_ATOL:
            found.append("mask_after_softmax")
    elif bool(nonzero.all()):
        # A zero score gives every forbidden source the same share of its normalising group: a
        # column's forbidden cells (softmax over columns) or a row's, each against the group's first.
        first = w[0].expand_as(w) if found else torch.cat([w.diagonal(1), w.new_zeros(1)])[:, None].expand_as(w)
        forbidden = ~ones.tril()
        same = bool(((w - first).abs() <= 1e-9 * first.abs())[forbidden].all())  # allclose(rtol=1e-9, atol=0)
        found.append("zero_fill_mask" if same else "no_mask")
    return found


def _sum_to_one(sums: torch.Tensor) -> bool:
    """torch.allclose(sums, 1, atol=SUM_ATOL) (its default rtol 1e-5), in fewer tensor operations:
    |sum - 1| <= atol + rtol, where NaN and inf fail as they fail there."""
    return bool(((sums - 1).abs() <= SUM_ATOL + 1e-5).all())


@functools.cache  # the same few lengths for every submission; callers only read it
def _offsets(T: int) -> torch.Tensor:
    """j - i for each cell (i, j): tril(d) keeps the cells where it is at most d, triu(d) at least d."""
    return torch.arange(T)[None, :] - torch.arange(T)[:, None]


def _misplaced_mask(nonzero: torch.Tensor) -> tuple[str, torch.Tensor] | None:
    """The mask bug whose allowed pattern the non-zero cells are, with that pattern: a triangle shifted
    (tril(d), 1 <= d <= T - 2), flipped (triu(d), 0 <= d <= T - 1) or without its diagonal (tril(-d),
    1 <= d <= T - 1). A triangle is fixed by its outermost diagonal, so only that one is compared."""
    T = nonzero.shape[0]
    if not bool(nonzero.any()):
        return None
    offsets = _offsets(T)
    seen = offsets[nonzero]
    top, bottom = int(seen.max()), int(seen.min())
    lower, upper = offsets <= top, offsets >= bottom
    if 1 <= top <= T - 2 and torch.equal(nonzero, lower):
        return "future_offset", lower
    if 0 <= bottom and torch.equal(nonzero, upper):
        return "wrong_mask_direction", upper
    if top <= -1 and torch.equal(nonzero, lower):
        return "diagonal_excluded", lower
    return None


def future_offset(w: torch.Tensor) -> int:
    """How many positions ahead a row sees (0 for a causal mask)."""
    rows, cols = torch.nonzero(w.nan_to_num(0.0) != 0, as_tuple=True)
    return int((cols - rows).max()) if len(rows) else 0


def mask_findings(ctx: Context) -> dict[str, tuple[Probe, torch.Tensor]]:
    """Each mask misconception seen, with the first probe (worked example first) that shows it."""

    def compute():
        readable = []
        for probe, reply in ctx.attention(families=("worked", "rand", "leak")):
            w = weights(reply, probe)
            if w is None or not probe.t["q"].any():
                continue  # zero queries make every score equal: no fill can be told from no mask
            readable.append((probe, first_slice(w)))
        # Only the longest length that shows a pattern, and the worked example, decide what is found
        # (below): lengths are read longest first; below the first that shows one, only the worked example.
        seen, longest = [], None
        for T in sorted({w.shape[-1] for _, w in readable}, reverse=True):
            for i, (probe, w) in enumerate(readable):
                if w.shape[-1] == T and (longest is None or probe.worked) and (names := mask_shape(w)):
                    seen.append((i, probe, w, names))
            if seen and longest is None:
                longest = T
        seen = [(probe, w, names) for _, probe, w, names in sorted(seen, key=lambda s: s[0])]
        if not seen:
            return {}
        # The longest sequence tells most patterns apart (at T = 3, tril(2) is no mask at all);
        # the worked example is quoted whenever it shows the same thing.
        longest = max(w.shape[-1] for _, w, _ in seen)
        found: dict[str, tuple[Probe, torch.Tensor]] = {}
        for probe, w, names in sorted(seen, key=lambda s: (s[1].shape[-1] != longest, not s[0].worked)):
            for name in names:
                if w.shape[-1] == longest or name in found:
                    found.setdefault(name, (probe, w))
        for probe, w, names in seen:
            if probe.worked:
                found.update({n: (probe, w) for n in names if n in found})
        if "no_mask" in found:  # unequal forbidden shares anywhere: not a constant fill
            found.pop("zero_fill_mask", None)
        return found

    return ctx.memo("mask", compute)


def _mask_facts(ctx: Context, name: str) -> Facts | None:
    seen = mask_findings(ctx).get(name)
    if seen is None:
        return None
    probe, w = seen
    article = "an" if str(w.shape[0])[0] == "8" or w.shape[0] in (11, 18) else "a"
    where = describe(probe) if probe.worked or probe.hidden else f"{article} {w.shape[0]}-position probe"
    return {"where": where, "row0": fmt(w[0]), "row_last": fmt(w[-1]), "sums": fmt(w.sum(-1)), PROBE: probe.id}


def zero_fill_value(probe: Probe, w: torch.Tensor, scale: float | None) -> float | None:
    """The score forbidden cells behave as if they had: log(w_ij / w_ii) + s * (q_i . k_i), j > i."""
    q, k = first_slice(probe.t["q"].double()), first_slice(probe.t["k"].double())
    s = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    cells = w.tolist()  # read once as Python floats: the same numbers, without a tensor op per cell
    estimates = []
    for i in range(w.shape[0] - 1):
        if not cells[i][i] > 0:  # NaN included
            continue
        own = s * float(q[i] @ k[i])
        estimates += [math.log(cells[i][j] / cells[i][i]) + own for j in range(i + 1, w.shape[0]) if cells[i][j] > 0]
    return sorted(estimates)[len(estimates) // 2] if estimates else None


def zero_fill_mask(ctx: Context) -> Facts | None:
    facts = _mask_facts(ctx, "zero_fill_mask")
    if facts is None:
        return None
    probe, w = mask_findings(ctx)["zero_fill_mask"]
    scale = probe_scales(ctx).get(probe.id)
    fill = zero_fill_value(probe, w, scale)
    if fill is None:
        return facts | {"fill": "a finite number", "exp": ", and its exponential is not zero"}
    if math.exp(fill) > 1e-12:
        return facts | {"fill": number(fill), "exp": f", and exp({number(fill)}) = {number(math.exp(fill))} still lets it in"}
    # A fill far below zero only leaks where the allowed scores are about as low: say how low they were.
    q, k = first_slice(probe.t["q"].double()), first_slice(probe.t["k"].double())
    s = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    allowed = (s * (q @ k.T))[torch.ones(w.shape, dtype=torch.bool).tril()]
    return facts | {"fill": number(fill), "exp": f"; next to allowed scores of about {number(float(allowed.median()))} "
                                                 f"on that probe, that finite fill still gets a share"}


def future_offset_reader(ctx: Context) -> Facts | None:
    facts = _mask_facts(ctx, "future_offset")
    if facts is None:
        return None
    d = future_offset(mask_findings(ctx)["future_offset"][1])
    return facts | {"ahead": "the one right after it" if d == 1 else f"the {d} right after it"}


def mask_reader(name: str):
    def read(ctx: Context) -> Facts | None:
        return _mask_facts(ctx, name)

    read.__name__ = name
    return read
