"""The contract: return values, untouched inputs, shape validation, no ready-made attention, SingleHead."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from functools import partial

import torch

from grader.checks.base import HEAD, TRAINABLE, CheckOutcome, check
from grader.checks.native import native_code, runtime_native
from grader.checks.observations import (
    ENTRY_OF_TARGET,
    Cases,
    Observations,
    TolFn,
    band_for,
    close,
    dtype_name,
    fmt,
    max_error,
    raised,
    shapes,
)
from grader.probes import describe
from grader.probes.replies import missing as missing_reply
from grader.vocabulary import FORBIDDEN_API, WRONG_RETURN_TYPE

_SLIPS = {
    "swapped": "returned (weights, out) instead of (out, weights)",
    "list": "returned a list instead of a tuple",
    "extra_dim": "added leading dimensions of size 1 to both results",
    "lone_out": "returned out alone instead of the pair (out, weights)",
}
# How each entry point's `return out` alone was read (sandbox/runner.py): a function's weights through a second
# call with the identity as values; a module computes its own values, so its weights stay unknown.
_LONE_READ = {
    "causal_attention": "Its weights were read as what it returns for the same queries and keys with the identity "
                        "as values (out = weights @ I), so the math is graded through that reading",
    "SingleHead": "Its weights are unknown, so its output alone is compared and its weights are not judged",
}


@check("computes_attention", title="Weights computed from queries and keys", group="Contract", section=HEAD,
       proves="The weights respond to the queries and keys: two probes that differ only in q and k get different "
              "weights. Property checks (shapes, untouched inputs, invariances, gradients, mask form) pay only "
              "when this holds.",
       passed="Your weights respond to the queries and keys, so the property checks count.")
def computes_attention(obs: Observations, tol: TolFn) -> CheckOutcome:
    missing = obs.attention_missing()
    if missing is None:
        return CheckOutcome("passed", 1, 1, "")
    # A crash on the probes that would show it is no evidence either way: say why it was not judged.
    if missing.startswith("the random probes"):
        text = (f"Whether attention is computed could not be judged: {missing}. Until those calls return, property "
                "checks earn nothing.")
    else:
        text = (f"No evidence that attention is computed: {missing} Until the weights come from "
                "softmax(q k^T / sqrt(d_k)) under the causal mask, property checks earn nothing.")
    return CheckOutcome("failed", 0, 1, text, not_written=obs.attention_not_written())


@check("return_contract", title="Returns (out, weights)", group="Contract", section=HEAD,
       proves="causal_attention returns a tuple of plain tensors (out, weights) with shapes (..., T, d_v) and "
              "(..., T, T). A slip that can be read one way "
              "only is graded through that reading and deducted here, once.",
       passed="causal_attention returns (out, weights) with shapes (..., T, d_v) and (..., T, T).",
       property=True)
def return_contract(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    slips: dict[tuple[str, str], str] = {}  # (slip, entry point) -> the first probe it was seen on
    for probe in obs.probes.probes:
        if probe.family not in ("worked", "rand", "head"):
            continue
        reply = obs.reply(probe.id)
        for slip in reply.slips:
            slips.setdefault((slip, ENTRY_OF_TARGET.get(probe.call.meta.get("target"), "causal_attention")), probe.id)
        if not reply.ok:
            if reply.error_type == WRONG_RETURN_TYPE:
                cases.fail(f"causal_attention should return the pair (out, weights) but on {shapes(probe)} it "
                           f"returned something else: {reply.error}.")
            continue  # a call that raised is the value checks' finding, not the contract's
        if probe.family == "head":
            continue
        q, v = probe.t["q"], probe.t["v"]
        want_out, want_w = (*q.shape[:-1], v.shape[-1]), (*q.shape[:-1], q.shape[-2])
        out, w = reply["out"], reply["weights"]
        cases.check(tuple(out.shape) == want_out and tuple(w.shape) == want_w,
                    f"For {shapes(probe)} out should be {want_out} (..., T, d_v) and weights {want_w} (..., T, T).",
                    f"out {want_out}, weights {want_w}", f"out {tuple(out.shape)}, weights {tuple(w.shape)}")
    for (slip, entry), pid in slips.items():
        read = (_LONE_READ[entry] if slip == "lone_out"
                else "The results were read through that slip, so the math is graded as it is")
        cases.fail(f"{entry} {_SLIPS[slip]} (first on {describe(obs.probes.by_id[pid])}). {read}; return exactly "
                   "(out, weights) as a tuple.", "(out, weights)", _SLIPS[slip])
    return cases.outcome()


@check("inputs_unchanged", title="Inputs are not modified", group="Contract", section=HEAD,
       proves="q, k and v hold the same numbers after the call as before.",
       passed="q, k and v hold the same numbers after the call.",
       property=True)
def inputs_unchanged(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("rand"):
        if not reply.ok:
            continue  # nothing to compare: the call's failure is the value checks' finding
        for name in "qkv":
            after = reply.tensors.get(f"{name}_after")
            same = after is not None and after.shape == probe.t[name].shape and torch.equal(after, probe.t[name])
            cases.check(same, f"{name} was modified by the call on {describe(probe)} ({shapes(probe)}): it holds "
                        "different numbers afterwards. Callers keep using their tensors: compute new ones instead "
                        "of writing into them.", partial(fmt, probe.t[name]), partial(fmt, after))
    if not cases.passed and not cases.problems:
        cases.fail("No call on the random probes returned, so whether q, k and v stay unchanged could not be seen.")
    return cases.outcome()


MISMATCH = {"batch": "batch dimensions that only broadcast", "length": "different sequence lengths for q and k",
             "width": "different query and key widths", "value_length": "a value sequence of another length",
             "value_batch": "value batch dimensions that only broadcast", "one_dim": "1-dimensional inputs"}


def names_shapes(message: str, probe) -> bool:
    """Whether an error message quotes an input's shape (as a tuple, a list or torch.Size)."""
    numbers = [int(n) for n in re.findall(r"\d+", message)]
    for name in "qkv":
        shape = list(probe.t[name].shape)
        if any(numbers[i:i + len(shape)] == shape for i in range(len(numbers) - len(shape) + 1)):
            return True
    return False


@check("shape_validation", title="Shape validation", group="Contract", section=HEAD,
       proves="Mismatched batch dimensions, lengths or widths (of q, k or v alone) and inputs with fewer than two "
              "dimensions raise ValueError (or a subclass) with a message naming the shapes.",
       passed="Mismatched batch dimensions, lengths and widths raise ValueError naming the shapes.",
       property=True, findings=("accepted", "message"))
def shape_validation(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("shape"):
        kind = MISMATCH[probe.info["mismatch"]]
        # A value that is not the pair is the runner's WrongReturnType, not an exception of the file's: it returned.
        returned = reply.ok or reply.error_type == WRONG_RETURN_TYPE
        if not cases.check(raised(reply, "ValueError"),
                           f"With {kind} ({shapes(probe)}) causal_attention should raise ValueError naming the "
                           "shapes; " + ("it returned a result instead." if returned else
                                         f"it raised {reply.raised}"),
                           "ValueError", "a result" if returned else str(reply.error_type), aspect="accepted"):
            continue
        cases.check(names_shapes(reply.error or "", probe),
                    f"With {kind} ({shapes(probe)}) the ValueError says \"{(reply.error or '')[:120]}\": name the "
                    "shapes, so the caller sees which input is wrong.", "the shapes in the message", "no shape",
                    aspect="message")
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
       proves="The submission neither calls scaled_dot_product_attention nor nn.MultiheadAttention (found by "
              "parsing the source and by run-time tripwires); calls to them are stopped, so the checks that "
              "call causal_attention earn nothing for attention the student did not write.",
       passed="Attention is written by hand: no scaled_dot_product_attention or MultiheadAttention.")
def forbidden_api(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    static = static_forbidden(obs.source, obs.forbidden)
    cases.check(not static, f"The source uses {', '.join(static)}. The exercise is to write the scores, the mask, "
                "the softmax and the weighted sum yourself.", "hand-written attention", ", ".join(static))
    # Refused at run time, or attempted and the refusal caught: both are uses (meta "fused", from the dispatcher).
    # Native code refused is native_code's finding below, not ready-made attention's.
    tripped = [(pid, r) for pid, r in obs.replies.items()
               if [f for f in r.fused if not runtime_native([f])]
               or (r.error_type == FORBIDDEN_API and not runtime_native(r.fused))]
    if tripped:
        pid, first = tripped[0]
        fused = [f for f in first.fused if not runtime_native([f])]
        what = first.error or f"tried {', '.join(fused)} and caught the refusal"
        cases.fail(f"At run time the submission called PyTorch's ready-made attention on {len(tripped)} of "
                   f"{len(obs.replies)} calls (first on {describe(obs.probes.by_id[pid])}: {what}). Those calls were stopped, so "
                   "every check that needs them earns nothing: that is the rubric's policy for attention not "
                   "written by hand.", "no call", f"{len(tripped)} calls")
    else:
        cases.ok()
    native = native_code(obs)
    cases.check(native is None, f"Native code: {native}. Write the attention computation in PyTorch operations.",
                "no native code", "native code")
    if not static and not tripped and native is None and obs.attention_missing() is not None:
        return CheckOutcome("error", 0, 1, "Not credited: not using ready-made attention only counts for code that "
                            f"computes attention, and {obs.attention_missing()}",
                            not_written=obs.attention_not_written())
    return cases.outcome()


@check("single_head", title="SingleHead module", group="Contract", section=TRAINABLE, needs="SingleHead",
       proves="SingleHead(6, 2) has query/key/value Linear layers without bias, 36 parameters, and "
              "maps (2, 4, 6) to out (2, 4, 2) and weights (2, 4, 4) matching the reference, or its own "
              "causal_attention on the same projections (a difference that is causal_attention's is counted "
              "by its checks, in every view).",
       passed="SingleHead(6, 2) has 36 parameters and maps (2, 4, 6) to out (2, 4, 2), weights (2, "
              "4, 4).",
       property=True, findings=("layers", "params", "shape", "values", "attention"))
def single_head(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases, noted = Cases(), []
    t = tol("float64")
    for probe, reply in obs.family("head"):
        if not reply.ok:
            cases.error(reply, f"SingleHead on {describe(probe)} (x {tuple(probe.t['x'].shape)})", probe)
            continue
        m = probe.call.meta
        dv = m["d_v"] or m["d_k"]
        layers = reply.layers
        for name, width in (("query", m["d_k"]), ("key", m["d_k"]), ("value", dv)):
            layer = layers.get(name)
            kind, bias, shape = (layer.type, layer.bias, layer.shape) if layer is not None else (None, None, None)
            cases.check(kind == "Linear" and not bias,
                        f"SingleHead.{name} should be nn.Linear(n_embd, width, bias=False).",
                        "Linear without bias", f"{kind} bias={bias}", aspect="layers")
            cases.check(shape == [width, m["n_embd"]],
                        f"SingleHead.{name}.weight should have shape ({width}, {m['n_embd']}): nn.Linear stores "
                        "its weight transposed.", str([width, m["n_embd"]]), str(shape), aspect="layers")
        cases.check(reply.n_params == probe.info["n_params"],
                    f"SingleHead({m['n_embd']}, {m['d_k']}, {m['d_v']}) should have {probe.info['n_params']} "
                    f"trainable parameters.", str(probe.info["n_params"]), str(reply.n_params),
                    aspect="params")
        want = probe.expected_head()
        own_probe = obs.probes.own_attention(probe)  # its own causal_attention on these projections
        own = obs.reply(own_probe.id) if own_probe is not None else missing_reply()
        for name in ("out", "weights"):
            got, wanted = reply.tensors.get(name), tuple(want[name].shape)
            if got is None and name == "weights" and "lone_out" in reply.slips:
                continue  # `return out` alone: return_contract deducts it once and says the weights are unknown
            x = tuple(probe.t["x"].shape)
            if got is None or tuple(got.shape) != wanted:
                cases.fail(f"SingleHead {name} for input {x} should have shape {wanted}; it came back "
                           + ("missing." if got is None else f"with shape {tuple(got.shape)}."),
                           str(wanted), "nothing" if got is None else str(tuple(got.shape)), aspect="shape")
                continue
            if close(got, want[name], t, band_for("float64")):
                cases.ok()
                continue
            # The shape is right: what differs is the values, and by how much is the finding.
            differ = (f"by up to {max_error(got, want[name]):.3g}" if bool(got.isfinite().all())
                      else "and it contains NaN or inf")
            mine = own.tensors.get(name) if own.ok else None
            wired_right = mine is not None and close(got, mine, t, band_for("float64"))
            if wired_right:
                # The difference is causal_attention's: its checks count it, once, in every view (the
                # grade's and the self-check's verdicts on the head agree); this check only says so.
                cases.ok()
                noted.append(f"SingleHead {name} for input {x} differs from the trusted reference {differ}, exactly "
                             "as your own causal_attention does on its projections (x @ W.T for query, key and "
                             "value): the head is wired right, and the difference comes from causal_attention.")
                continue
            cases.fail(f"SingleHead {name} for input {x} has the right shape {wanted} ({dtype_name(got)}) but its "
                       f"values differ from the trusted reference {differ}.",
                       partial(fmt, want[name]), partial(fmt, got), aspect="values")
    outcome = cases.outcome()
    if outcome.status == "passed" and noted:
        # Passed, with what it saw: "out" is the finding the checks comparing causal_attention count.
        return replace(outcome, feedback=noted[0], finding="attention", findings=("attention", "out"))
    return outcome
