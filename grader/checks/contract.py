"""The contract: return values, untouched inputs, shape validation, no ready-made attention, SingleHead."""

from __future__ import annotations

import ast
from functools import partial

import torch

from grader.checks import expected
from grader.checks.base import HEAD, TRAINABLE, CheckOutcome, check
from grader.checks.observations import Cases, Observations, TolFn, close, dtype_name, fmt


@check("return_contract", title="Returns (out, weights)", group="Contract", section=HEAD,
       proves="causal_attention returns a pair of plain tensors (out, weights) with the right "
              "shapes, dtype and device.",
       passed="causal_attention returns (out, weights) with shapes (..., T, d_v) and (..., T, T).")
def return_contract(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in [(p, obs.reply(p.id)) for p in obs.probes.probes if p.family in ("worked", "rand")]:
        if not reply.ok:
            if reply.error_type == "WrongReturnType":
                cases.fail(f"causal_attention should return the pair (out, weights): {reply.error}.")
            else:
                cases.error(reply, f"causal_attention on probe {probe.id}")
            continue
        q, v = probe.t["q"], probe.t["v"]
        T = q.shape[-2]
        want_out, want_w = (*q.shape[:-1], v.shape[-1]), (*q.shape[:-1], T)
        out, w = reply["out"], reply["weights"]
        if tuple(out.shape) == want_w and tuple(w.shape) == want_out and want_w != want_out:
            cases.fail("The return values are swapped: return (out, weights), out first.",
                       f"out {want_out}, weights {want_w}", f"out {tuple(out.shape)}, weights {tuple(w.shape)}")
            continue
        cases.check(tuple(out.shape) == want_out and tuple(w.shape) == want_w,
                    f"On probe {probe.id} out should be {want_out} (..., T, d_v) and weights {want_w} (..., T, T).",
                    f"out {want_out}, weights {want_w}", f"out {tuple(out.shape)}, weights {tuple(w.shape)}")
    return cases.outcome()


@check("inputs_unchanged", title="Inputs are not modified", group="Contract", section=HEAD,
       proves="q, k and v hold the same numbers after the call as before.",
       passed="q, k and v hold the same numbers after the call.")
def inputs_unchanged(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("rand"):
        if not reply.ok:
            cases.error(reply, f"causal_attention on probe {probe.id}")
            continue
        for name in "qkv":
            after = reply.tensors.get(f"{name}_after")
            same = after is not None and after.shape == probe.t[name].shape and torch.equal(after, probe.t[name])
            cases.check(same, f"{name} was modified by the call (an in-place operation such as {name} /= ... or "
                        f"{name}.mul_). Callers keep using their tensors: compute new ones instead.",
                        partial(fmt, probe.t[name]), partial(fmt, after))
    return cases.outcome()


@check("shape_validation", title="Shape validation", group="Contract", section=HEAD,
       proves="Mismatched batch dimensions or sequence lengths raise ValueError naming the shapes.",
       passed="Mismatched batch dimensions, lengths and widths raise ValueError.")
def shape_validation(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    what = {"batch": "batch dimensions that only broadcast", "length": "different sequence lengths",
            "width": "different query and key widths"}
    for probe, reply in obs.family("shape"):
        shapes = ", ".join(f"{n} {tuple(probe.t[n].shape)}" for n in "qkv")
        kind = what[probe.id.rsplit(".", 1)[1]]
        raised = reply.error_type
        if raised == "NotImplementedError":
            cases.error(reply, "causal_attention")
            continue
        cases.check(raised == "ValueError",
                    f"With {kind} ({shapes}) causal_attention should raise ValueError naming the shapes; "
                    + ("it returned a result instead." if reply.ok else f"it raised {raised}."),
                    "ValueError", "a result" if reply.ok else str(raised))
    return cases.outcome()


def static_forbidden(source: str, names: tuple[str, ...]) -> list[str]:
    """Ready-made attention the source reaches for, found by parsing (so comments don't count).

    Attribute access (F.scaled_dot_product_attention, torch._C._nn...), imports from torch and
    string constants (getattr(F, "...")) count; a student's own helper of the same name does not.
    """
    if not any(name in source for name in names):
        return []  # most submissions: no need to parse at all
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    found = set()
    for node in ast.walk(tree):
        match node:
            case ast.Attribute(attr=text):
                pass
            case ast.ImportFrom(module=module, names=aliases) if (module or "").startswith("torch"):
                text = " ".join(a.name for a in aliases)
            case ast.Constant(value=str(text)) if id(node) not in docstrings:
                pass
            case _:
                continue
        found.update(f for f in names if f in text)
    return sorted(found)


@check("forbidden_api", title="Attention written by hand", group="Contract", section=HEAD,
       proves="The submission neither calls scaled_dot_product_attention nor nn.MultiheadAttention.",
       passed="Attention is written by hand: no scaled_dot_product_attention or MultiheadAttention.")
def forbidden_api(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    static = static_forbidden(obs.source, obs.forbidden)
    cases.check(not static, f"The source uses {', '.join(static)}. The exercise is to write the scores, the mask, "
                "the softmax and the weighted sum yourself.", "hand-written attention", ", ".join(static))
    tripped = [pid for pid, r in obs.replies.items() if r.error_type == "ForbiddenAPI"]
    cases.check(not tripped, "At run time the submission called PyTorch's ready-made attention.",
                "no call", f"{len(tripped)} probes")
    return cases.outcome()


@check("single_head", title="SingleHead module", group="Contract", section=TRAINABLE, needs="SingleHead",
       proves="SingleHead(6, 2) has query/key/value Linear layers without bias, 36 parameters, and "
              "maps (2, 4, 6) to out (2, 4, 2) and weights (2, 4, 4) matching the reference.",
       passed="SingleHead(6, 2) has 36 parameters and maps (2, 4, 6) to out (2, 4, 2), weights (2, "
              "4, 4).")
def single_head(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    t = tol("float64")
    for probe, reply in obs.family("head"):
        if not reply.ok:
            cases.error(reply, f"SingleHead on probe {probe.id}")
            continue
        m = probe.call.meta
        dv = m["d_v"] or m["d_k"]
        layers = reply.meta.get("layers", {})
        for name, width in (("query", m["d_k"]), ("key", m["d_k"]), ("value", dv)):
            layer = layers.get(name, {})
            cases.check(layer.get("type") == "Linear" and not layer.get("bias"),
                        f"SingleHead.{name} should be nn.Linear(n_embd, width, bias=False).",
                        "Linear without bias", f"{layer.get('type')} bias={layer.get('bias')}")
            cases.check(layer.get("shape") == [width, m["n_embd"]],
                        f"SingleHead.{name}.weight should have shape ({width}, {m['n_embd']}): nn.Linear stores "
                        "its weight transposed.", str([width, m["n_embd"]]), str(layer.get("shape")))
        cases.check(reply.meta.get("n_params") == probe.info["n_params"],
                    f"SingleHead({m['n_embd']}, {m['d_k']}, {m['d_v']}) should have {probe.info['n_params']} "
                    f"trainable parameters.", str(probe.info["n_params"]), str(reply.meta.get("n_params")))
        want = probe.memo("head", expected.head, probe.t)
        for name in ("out", "weights"):
            got = reply.tensors.get(name)
            shape = None if got is None else tuple(got.shape)
            cases.check(got is not None and close(got, want[name], t),
                        f"SingleHead {name} for input {tuple(probe.t['x'].shape)} should be "
                        f"{tuple(want[name].shape)} and match the reference, got shape {shape} "
                        f"in {dtype_name(got) if got is not None else 'nothing'}.",
                        partial(fmt, want[name]), partial(fmt, got))
    return cases.outcome()
