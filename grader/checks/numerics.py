"""Numbers against PyTorch's own attention: random probes, float32/float64 parity, large scores."""

from __future__ import annotations

from grader.checks import expected
from grader.checks.base import HEAD, SHARES, TRAINABLE, CheckOutcome, check
from grader.checks.observations import (
    Cases,
    Observations,
    Reply,
    TolFn,
    close,
    dtype_name,
    first_bad_row,
    fmt,
)
from grader.probes import Probe


def compare_to_sdpa(cases: Cases, probe: Probe, reply: Reply, tol: TolFn, *, base=None) -> None:
    """out and weights of one reply against SDPA on the same (or equivalent `base`) inputs."""
    q, k = base if base is not None else (probe.t["q"], probe.t["k"])
    want_out, want_w = probe.memo("attention", expected.attention, q, k, probe.t["v"])
    in_dtype = dtype_name(probe.t["q"])
    t = tol(in_dtype)
    for name, want in (("out", want_out), ("weights", want_w)):
        got = reply.tensors.get(name)
        if got is None or got.shape != want.shape:
            shape = None if got is None else tuple(got.shape)
            cases.fail(f"{name} should have shape {tuple(want.shape)} for q {tuple(q.shape)} and v "
                       f"{tuple(probe.t['v'].shape)}, got {shape}.", str(tuple(want.shape)), str(shape))
            continue
        if close(got, want, t):
            cases.ok()
            continue
        row = first_bad_row(got, want, t)
        where = f" first at receiving position {row}" if row is not None else ""
        nonfinite = "" if got.isfinite().all() else " (it contains NaN or inf)"
        cases.fail(f"{name} differs from scaled_dot_product_attention on probe {probe.id}{where}{nonfinite}.",
                   fmt(want[..., row, :] if row is not None else want),
                   fmt(got[..., row, :] if row is not None else got))


def _each(obs: Observations, families: tuple[str, ...], cases: Cases):
    for family in families:
        for probe, reply in obs.family(family):
            if reply.ok:
                yield probe, reply
            else:
                cases.error(reply, f"causal_attention on probe {probe.id}")


@check("shift_invariance", title="Stable softmax under large scores", group="Numerics", section=SHARES,
       proves="Shifting every score by about 1000 changes nothing and produces no NaN or inf.",
       passed="Scores near 1000 gave the same weights as the unshifted scores, with no NaN or inf: "
              "softmax subtracts the row maximum.")
def shift_invariance(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in _each(obs, ("shift",), cases):
        compare_to_sdpa(cases, probe, reply, tol, base=probe.info["base"])
    return cases.outcome()


@check("random_probes", title="Random probes", group="Numerics", section=HEAD,
       proves="Seeded float64 probes with distinct batch, length and widths, with 0, 1 and 2 batch "
              "dimensions and extreme scores, match a trusted reference.",
       passed="Every random probe, with and without batch dimensions, matches the trusted reference.")
def random_probes(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in _each(obs, ("rand",), cases):
        compare_to_sdpa(cases, probe, reply, tol)
    return cases.outcome()


@check("sdpa_parity", title="Parity with scaled_dot_product_attention", group="Numerics", section=TRAINABLE,
       proves="float32 and float64 outputs agree with PyTorch's SDPA within dtype tolerances and "
              "keep the input dtype.",
       passed="float32 and float64 results agree with scaled_dot_product_attention and keep their "
              "dtype.")
def sdpa_parity(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in _each(obs, ("f32", "rand"), cases):
        want = dtype_name(probe.t["q"])
        got = dtype_name(reply["out"])
        if not cases.check(got == want, f"Inputs in {want} came back as {got}: keep the input dtype.", want, got):
            continue
        if probe.family == "f32":
            compare_to_sdpa(cases, probe, reply, tol)
    return cases.outcome()
