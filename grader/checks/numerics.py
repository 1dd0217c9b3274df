"""Numbers: random probes against PyTorch's attention, float32 parity, large scores, precision."""

from __future__ import annotations

import functools

from grader.checks.base import HEAD, SHARES, TRAINABLE, CheckOutcome, check
from grader.checks.observations import (
    Cases,
    Observations,
    Reply,
    TolFn,
    band_for,
    close,
    dtype_name,
    first_bad_row,
    fmt,
    matches_expected,
    max_error,
    shapes,
)
from grader.probes import Probe, describe


def compare_to_sdpa(cases: Cases, probe: Probe, reply: Reply, tol: TolFn) -> None:
    """out and weights of one reply against SDPA on the same inputs (float64 inputs: within the
    precision band; the `precision` check alone holds them to float64)."""
    q = probe.t["q"]
    want_out, want_w = probe.expected()
    in_dtype = dtype_name(probe.t["q"])
    t, band = tol(in_dtype), band_for(in_dtype, probe.info.get("scores"))
    for name, want in (("out", want_out), ("weights", want_w)):
        got = reply.tensors.get(name)
        if got is None or got.shape != want.shape:
            shape = None if got is None else tuple(got.shape)
            cases.fail(f"{name} should have shape {tuple(want.shape)} for q {tuple(q.shape)} and v "
                       f"{tuple(probe.t['v'].shape)}, got {shape}.", str(tuple(want.shape)), str(shape), aspect=name)
            continue
        if matches_expected(reply, probe, name, t, band):
            cases.ok(name)
            continue
        # Where and by how much it differs: read only for the case the outcome quotes.
        bad_row = functools.cache(lambda got=got, want=want: first_bad_row(got, want, band or t))

        def message(name=name, got=got, want=want, row=bad_row) -> str:
            where = f" first at receiving position {row()}" if row() is not None else ""
            nonfinite = "" if got.isfinite().all() else " (it contains NaN or inf)"
            return (f"{name} differs from scaled_dot_product_attention on {describe(probe)} ({shapes(probe)})"
                    f"{where}{nonfinite}: largest difference {max_error(got, want):.3g}.")

        cases.fail(message, lambda want=want, row=bad_row: fmt(want[..., row(), :] if row() is not None else want),
                   lambda got=got, row=bad_row: fmt(got[..., row(), :] if row() is not None else got), aspect=name)


@check("shift_invariance", title="Stable softmax under large scores", group="Numerics", section=SHARES,
       proves="Moving every score by +1000, -1000 (or -1e4: the edge for a finite fill) gives the submission's own unshifted result, with no NaN "
              "or inf (whatever scale it applies, a common shift stays common).",
       passed="Scores near +1000 and -1000 gave the same result as the unshifted scores, with no NaN or inf: "
              "softmax subtracts the row maximum.",
       property=True, findings=("nonfinite", "moved"))
def shift_invariance(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    t = tol("float64")
    for probe, reply in obs.family("shift"):
        if probe.info["kind"] == "base":
            continue
        base_probe = obs.probes.by_id[probe.info["base"]]
        base = obs.reply(base_probe.id)
        if not (base.ok and reply.ok):
            bad, where = (reply, probe) if not reply.ok else (base, base_probe)
            cases.error(bad, f"causal_attention on {describe(where)}", where)
            continue
        shift = probe.info["shift"]
        band = band_for("float64", shift)
        for name in ("out", "weights"):
            got, own = reply.tensors.get(name), base.tensors.get(name)
            if got is None or own is None or got.shape != own.shape:
                cases.fail(f"{name} came back with shape {None if got is None else tuple(got.shape)} for scores "
                           f"near {shift:+g} and {None if own is None else tuple(own.shape)} without the shift.")
                continue
            if not bool(own.isfinite().all()):
                # NaN or inf before any shift: nothing to compare the shifted result with.
                cases.fail(f"Your {name} already contains NaN or inf without any shift ({describe(base_probe)}, "
                           f"{shapes(base_probe)}), so whether a shift changes it cannot be judged; the mask and "
                           "value checks say where it comes from.", "finite values", lambda own=own: fmt(own))
                continue
            good = close(got, own, t, band, finite_expected=True)  # own is finite (above)
            bad = "" if good or got.isfinite().all() else " and contains NaN or inf"  # close: got is finite
            cases.check(good,
                        lambda got=got, own=own, bad=bad, shift=shift, probe=probe, name=name:
                        f"With every score moved by {shift:+g} your {name} changed by up to "
                        f"{max_error(got, own):.3g}{bad} compared with your own result on the unshifted scores "
                        f"({describe(probe)}, {shapes(probe)}). Shares depend only on differences between a row's "
                        "scores" + (", and a finite fill must stay below every allowed score" if shift < 0 else "")
                        + ".", lambda own=own: fmt(own), lambda got=got: fmt(got),
                        aspect="nonfinite" if bad else "moved")  # overflow, or a score the shift left behind
    return cases.outcome()


@check("random_probes", title="Random probes", group="Numerics", section=HEAD,
       proves="Seeded float64 probes at several lengths, with distinct batch, head and width sizes, 0, 1 and 2 "
              "batch dimensions, a non-contiguous multi-head layout and extreme scores, match a trusted "
              "reference.",
       passed="Every random probe, with and without batch dimensions, matches the trusted reference.",
       findings=("out", "weights"))
def random_probes(obs: Observations, tol: TolFn) -> CheckOutcome:
    return _by_kind(obs, "rand", tol)


@check("sdpa_parity", title="Parity with scaled_dot_product_attention", group="Numerics", section=TRAINABLE,
       proves="float32 inputs give results that agree with PyTorch's SDPA within float32's tolerance.",
       passed="float32 results agree with scaled_dot_product_attention.")
def sdpa_parity(obs: Observations, tol: TolFn) -> CheckOutcome:
    return _by_kind(obs, "f32", tol)


def _by_kind(obs: Observations, family: str, tol: TolFn) -> CheckOutcome:
    """Each probe of the family against SDPA, credited per kind of probe (Cases.kind)."""
    cases = Cases()
    for probe, reply in obs.family(family):
        cases.kind(probe.info["variant"])
        if reply.ok:
            compare_to_sdpa(cases, probe, reply, tol)
        else:
            cases.error(reply, f"causal_attention on {describe(probe)}", probe)
    return cases.outcome()


# Probes whose results are held to the input dtype's own tolerance by the precision check.
_VALUE_FAMILIES = ("worked", "rand", "f32")


@check("precision", title="Exact at the input's precision", group="Numerics", section=TRAINABLE,
       proves="Results come back in the input's dtype and, on float64 inputs, agree with the exact values to "
              "float64's tolerance (a result right only to float32's is one precision finding, named with its "
              "measured error).",
       passed="Results keep the input's dtype (float32 and float64, the chapter's two) and are exact to its precision.",
       property=True)
def precision(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    worst, worst_probe, dtypes, wrong = 0.0, None, {}, False
    for family in _VALUE_FAMILIES:
        for probe, reply in obs.family(family):
            if not reply.ok or "out" not in reply.tensors:
                continue  # the value checks say what went wrong with this call
            in_dtype = dtype_name(probe.t["q"])
            got_dtype = dtype_name(reply["out"])
            if got_dtype != in_dtype:
                dtypes.setdefault((in_dtype, got_dtype), probe)
            if in_dtype != "float64":
                continue
            want_out, want_w = probe.expected()
            band, t = band_for("float64"), tol("float64")
            for which, (name, got, want) in enumerate((("out", reply["out"], want_out),
                                                      ("weights", reply.tensors.get("weights"), want_w))):
                if got is None or got.shape != want.shape:
                    continue
                if not matches_expected(reply, probe, name, band, band):
                    wrong = True  # a different function here, not a rounding one
                elif not close(got, want, t, finite_expected=probe.expected_finite()[which],
                               allowed=lambda tol, which=which, probe=probe: probe.allowed(which, tol)):
                    err = max_error(got, want)
                    if err > worst:
                        worst, worst_probe = err, probe
    if wrong:
        # Code that is wrong on some probe (a scale, a mask) can come close on others, where softmax
        # saturates: that nearness is the bug the value checks charge, not lost precision.
        worst, worst_probe = 0.0, None
    for (in_dtype, got_dtype), probe in dtypes.items():
        cases.fail(f"{in_dtype} inputs came back as {got_dtype} ({describe(probe)}, {shapes(probe)}): keep the "
                   "caller's dtype.", in_dtype, got_dtype)
    if not dtypes:
        cases.ok()
    t = tol("float64")
    cases.check(worst_probe is None,
                f"On float64 inputs your results are right only to {worst:.2g} (largest difference, probe "
                f"{worst_probe.id if worst_probe else ''}), the precision of float32 arithmetic; float64 allows "
                f"{t.atol:g} + {t.rtol:g} x |value|. Some step computes in a lower precision (.float(), "
                "float32 constants or a float32 softmax) before casting back. Only this check counts it.",
                f"within {t.atol:g}", f"{worst:.2g}")
    # Values that differ from the chapter's are not "exact" to anything: say only what was judged.
    return cases.outcome("Results keep the input's dtype; how exact they are is not judged while their values "
                         "differ from the chapter's (the value checks say where)." if wrong and not dtypes else "")

