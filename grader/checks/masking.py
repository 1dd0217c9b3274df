"""Where information may flow: the leak interventions and the structure of the weights."""

from __future__ import annotations

import logging

import torch
import torch.nn.functional as F

from grader.checks.base import HIDE, PROVE_TEETH, CheckOutcome, Tolerance, check
from grader.checks.observations import Cases, Observations, TolFn, band_for, dtype_name, fmt, shapes, within
from grader.probes.expected import unmasked

log = logging.getLogger(__name__)

# An intervention must move unmasked attention's fixed rows at least this much, or it has no teeth.
TEETH = 1e-3

_STORY = {
    "final_kv": "Changing only the final position's key and value changed earlier outputs",
    "future_kv": "Changing only future keys and values changed earlier outputs",
    "future_keys": "Changing only future keys changed earlier outputs",
    "future_kv_low": "With every score near -1e4, changing only future keys and values changed earlier outputs "
                     "(a finite fill must stay below every allowed score)",
    "future_queries": "Changing only future queries changed earlier outputs: a later receiver reshaped an "
                      "earlier one's shares (softmax normalised over receivers instead of sources?)",
    "other_items": "Changing other batch items changed the first item's output: examples must not attend "
                   "to each other",
}


# Each intervention in words, as a picture of it is titled.
INTERVENTION = {
    "final_kv": "Change only the final position's key and value",
    "future_kv": "Change only future keys and values",
    "future_keys": "Change only future keys",
    "future_kv_low": "Change only future keys and values, every score near -1e4",
    "future_queries": "Change only future queries",
    "other_items": "Change only the other batch items",
}


def row_changes(base: torch.Tensor, changed: torch.Tensor, items: int, *, finite: bool = False) -> torch.Tensor:
    """Largest change of each receiving row over the untouched batch items.

    NaN in the same place on both sides is no change; NaN on one side only is an infinite change.
    `finite`: the caller knows both sides are finite, so neither rule has a cell to apply to.
    """
    a, b = base.double()[:items], changed.double()[:items]
    diff = (b - a).abs()
    if finite:  # as below, with no NaN or inf on either side (a difference may still overflow to inf)
        return diff.nan_to_num(nan=float("inf")).amax(dim=(0, -1))
    same_nan = a.isnan() & b.isnan()
    diff = torch.where(same_nan, torch.zeros_like(diff), diff.nan_to_num(nan=float("inf")))
    both_inf = (a == b) & a.isinf()
    diff = torch.where(both_inf, torch.zeros_like(diff), diff)
    return diff.amax(dim=(0, -1))


def _finite_rows(out: torch.Tensor, items: int, rows: int) -> torch.Tensor:
    """For each of the first `rows` receiving positions: finite over the first `items` batch items."""
    finite = out[:items, :rows].isfinite().all(0)
    while finite.dim() > 1:
        finite = finite.all(-1)
    return finite


def _finite_size(out: torch.Tensor) -> float:
    """The largest finite magnitude in `out` (NaN and inf read as 0)."""
    return float(out.double().nan_to_num(nan=0.0, posinf=0.0, neginf=0.0).abs().max())


def _wrong_axis(q, k, v) -> torch.Tensor:
    """Causal attention whose softmax runs over receivers (dim=-2): the control for query changes.

    Built from PyTorch's own attention on the transposed problem (each source attending over the
    receivers allowed to see it), not written out: this module ships in the student's wheel."""
    q, k, v = q.double(), k.double(), v.double()
    T = q.shape[-2]
    eye = torch.eye(T, dtype=torch.float64).expand(*q.shape[:-1], T)
    seen_by = torch.ones(T, T, dtype=torch.bool).triu()  # source j is seen by receivers i >= j
    per_source = F.scaled_dot_product_attention(k, q, eye, attn_mask=seen_by, dropout_p=0.0)
    return per_source.transpose(-2, -1) @ v


def _control(p, kind: str) -> torch.Tensor:
    """Attention without the protection that intervention `kind` tests, on one probe's inputs."""
    q, k, v = p.t["q"], p.t["k"], p.t["v"]
    if kind == "future_queries":
        return _wrong_axis(q, k, v)
    if kind != "other_items":
        return unmasked(q, k, v)
    # Across items the protection is the batch axis itself: attend over all items as one sequence.
    B, T = q.shape[:2]
    flat = [t.reshape(1, B * T, t.shape[-1]) for t in (q, k, v)]
    return unmasked(*flat).reshape(B, T, -1)


def control_changes(base_probe, probe) -> torch.Tensor:
    """How much the same intervention moves attention that lacks the protection under test.

    Memoised on the probes: the leak check and the report's picture both read it.
    """
    kind = probe.info["kind"]

    def changes() -> torch.Tensor:
        base = base_probe.memo(f"control:{kind}", _control, base_probe, kind)
        return row_changes(base, _control(probe, kind), probe.info["items_fixed"])

    return probe.memo("control_changes", changes)


def _teeth(base_probe, probe, rows: int) -> float:
    """How far the intervention moves the fixed rows of attention without the protection (memoised on the probe)."""
    return float(control_changes(base_probe, probe)[:rows].max())


@check("leak_intervention", title="No information from the future", group="Masking", section=PROVE_TEETH,
       proves="Changing only future keys, values or queries leaves the submission's own earlier output rows "
              "unchanged, and batch items never see each other (at several lengths).",
       passed="Changing future keys, values and queries, or other batch items, left earlier rows untouched; "
              "the same change moves attention without the protection, so the probe has teeth.",
       property=True)
def leak_intervention(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    unreadable = []
    t = tol("float64")
    for probe, reply in obs.family("leak"):
        if probe.info["kind"] == "base":
            continue
        base_probe = obs.probes.by_id[probe.info["base"]]
        base = obs.reply(base_probe.id)
        rows = probe.info["rows_fixed"]
        if probe.memo("teeth", _teeth, base_probe, probe, rows) < TEETH:
            # A probe that would not catch a leak proves nothing either way: leave it out, say so.
            log.warning("probe %s does not move unprotected attention; not counted", probe.id)
            continue
        cases.kind(probe.info["kind"])
        if not (base.ok and reply.ok):
            bad = reply if not reply.ok else base
            cases.error(bad, "causal_attention in the leak intervention", probe if not reply.ok else base_probe)
            continue
        if base["out"].shape != reply["out"].shape or base["out"].dim() < 3:
            cases.fail(f"The leak intervention needs out of shape (B, T, d_v) from both calls; it got "
                       f"{tuple(base['out'].shape)} and {tuple(reply['out'].shape)} for {shapes(probe)}.")
            continue
        items = probe.info["items_fixed"]
        both = (base.memo("finite", lambda base=base: bool(base["out"].isfinite().all()))
                and bool(reply["out"].isfinite().all()))
        # Every value finite on both sides (and something to read): every row is read.
        if both and base["out"].dim() == 3 and min(rows, *base["out"].shape[:2]) >= 1:
            changes = row_changes(base["out"], reply["out"], items, finite=True)[:rows]
        else:
            # NaN or inf on both sides is no evidence either way: such rows are left out, never read as no change.
            finite = base.memo(("finite rows", items, rows), _finite_rows, base["out"], items, rows) | _finite_rows(
                reply["out"], items, rows)
            if not bool(finite.any()):
                unreadable.append(probe)  # like a probe without teeth: proves nothing either way
                continue
            changes = row_changes(base["out"], reply["out"], items)[:rows][finite]
        worst = float(changes.max())
        # The output's own size sets the tolerance; NaN or inf in it never disables the comparison.
        limit = t.atol + t.rtol * base.memo("finite size", _finite_size, base["out"]) if base["out"].numel() else t.atol
        cases.check(worst <= limit, f"{_STORY[probe.info['kind']]} (T = {probe.t['q'].shape[-2]}): rows "
                    f"0..{rows - 1} moved by up to {worst:.6g}. Each receiving position may use only sources up to "
                    "and including itself, within its own batch item.",
                    "0 change in every earlier row",
                    lambda worst=worst, changes=changes: f"largest change {worst:.6g}, per row {fmt(changes)}")
    if unreadable and not cases.seen:  # nothing but NaN or inf: never read as "no change"
        probe = unreadable[0]
        cases.kind(probe.info["kind"])
        cases.fail(f"{_STORY[probe.info['kind']]} (T = {probe.t['q'].shape[-2]}): every earlier row is NaN or inf "
                   "in both calls, so nothing shows that the future stays out.",
                   "finite earlier rows", "NaN or inf in every earlier row")
    return cases.outcome()


@check("mask_structure", title="Causal mask structure", group="Masking", section=HIDE,
       proves="Weights are exactly zero above the diagonal and every row sums to one.",
       passed="Weights are zero above the diagonal and each row sums to one.",
       property=True, findings=("shape", "nan", "above", "sums"))
def mask_structure(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in [(obs.probes.worked, obs.reply(obs.probes.worked.id)), *obs.family("rand")]:
        cases.kind(probe.info.get("variant", probe.id))
        if not reply.ok:
            cases.error(reply, "causal_attention", probe)
            continue
        w = reply["weights"].double()
        if w.dim() < 2 or w.shape[-1] != w.shape[-2]:
            cases.fail(f"weights should be square over positions (..., T, T), got {tuple(w.shape)} for "
                       f"{shapes(probe)}.", aspect="shape")
            continue
        T = w.shape[-1]
        if not bool(w.isnan().any()):
            _definite_structure(cases, w, T, probe, tol)
            continue
        nan = torch.isnan(w).any(-1)  # (..., T): receiving rows with a NaN weight
        nan_rows = nan.reshape(-1, T).any(0)
        if bool(nan_rows.any()) and not probe.info.get("scores"):
            # A NaN row is its own finding (0/0, not a share taken from the future). Only where scores
            # are far too small for exp to overflow: scores near 1000 overflow an unstable softmax, and
            # that NaN is the stability checks' finding, not the mask's.
            rows = [int(i) for i in torch.nonzero(nan_rows).flatten()]
            cases.fail(f"Row{'s' if len(rows) > 1 else ''} {', '.join(map(str, rows[:6]))} of the weights "
                       f"{'are' if len(rows) > 1 else 'is'} NaN (T = {T}, on {shapes(probe)}, scores far too small "
                       "to overflow): softmax there divided 0 by 0, as over a row with no allowed source. Every "
                       "receiving position may use at least itself, so no row is empty.",
                       "no NaN", f"NaN in row{'s' if len(rows) > 1 else ''} {', '.join(map(str, rows[:6]))}",
                       aspect="nan")
        w = w[~nan]  # (rows, T): the rows with a definite weight, judged on their own
        upper = torch.ones(T, T, dtype=torch.bool).triu(1)
        upper = upper.expand(*nan.shape, T)[~nan]  # each kept row's own positions above the diagonal
        above = w[upper]
        cases.check(bool((above == 0).all()),
                    f"Weights above the diagonal are not exactly zero (T = {T}): a receiving position takes a "
                    "share from a future source.",
                    "0 above the diagonal",
                    lambda above=above: f"up to {float(above.abs().max()) if above.numel() else 0.0:.6g}",
                    aspect="above")
        sums = w.sum(-1)
        dtype = dtype_name(probe.t["q"])  # the input's dtype sets the tolerance, whatever came back
        t, band = tol(dtype), band_for(dtype) or tol(dtype)
        good = bool(torch.isfinite(sums).all()) and bool(
            torch.allclose(sums, torch.ones_like(sums), atol=max(t.atol, band.atol) * T))
        cases.check(good, f"Rows of the weights do not sum to one (T = {T}): each row should be a distribution "
                    "over the allowed sources.", "every row sums to 1", lambda sums=sums, T=T: f"row sums {fmt(sums[:T])}",
                    aspect="sums")
    return cases.outcome()


def _definite_structure(cases: Cases, w: torch.Tensor, T: int, probe, tol: TolFn) -> None:
    """mask_structure's two cases for weights (..., T, T) without a NaN (most replies): the same verdicts
    and messages as the general path, whose every row is kept, in fewer operations."""
    rows = w.reshape(-1, T)  # what w[~nan] is when no row has a NaN
    cases.check(not bool(w.triu(1).any()),  # any non-zero above the diagonal (inf is non-zero)
                f"Weights above the diagonal are not exactly zero (T = {T}): a receiving position takes a "
                "share from a future source.",
                "0 above the diagonal",
                lambda: f"up to {float(w.triu(1).abs().max()) if T > 1 else 0.0:.6g}",
                aspect="above")
    sums = rows.sum(-1)
    dtype = dtype_name(probe.t["q"])  # the input's dtype sets the tolerance, whatever came back
    t, band = tol(dtype), band_for(dtype) or tol(dtype)
    # torch.allclose(sums, ones, atol=A) (its rtol 1e-5): a finite expected value, so `within`, whose bound
    # A + 1e-5 |1| is one number here; within tolerance of one is finite, so no separate finiteness test.
    good = within(sums, sums.new_ones(()), Tolerance(atol=max(t.atol, band.atol) * T, rtol=1e-05))
    cases.check(good, f"Rows of the weights do not sum to one (T = {T}): each row should be a distribution "
                "over the allowed sources.", "every row sums to 1", lambda: f"row sums {fmt(sums[:T])}",
                aspect="sums")
