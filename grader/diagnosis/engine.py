"""Name the misconception behind a submission's behaviour, quoting its own numbers.

Three sources of evidence, strongest first: how the submission failed as a whole (did not load,
exited, hung, ran out of memory); contract checks that name their own misconception; and behaviour
matched against the catalogue's fingerprints, plus a fitted scale for scale bugs. A submission that
passes every check gets no diagnosis.
"""

from __future__ import annotations

import difflib
import math

import torch

from grader.checks import expected
from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations, fmt
from grader.diagnosis.catalogue import Catalogue
from grader.diagnosis.fingerprint import match_fraction, observe_replies
from grader.report.models import Diagnosis

MAX_DIAGNOSES = 3
MATCH_THRESHOLD = 0.75

# Checks whose failure is itself the misconception.
_CHECK_MISCONCEPTION = {
    "forbidden_api": "forbidden_api",
    "inputs_unchanged": "inputs_mutated",
    "shape_validation": "no_shape_validation",
}

# What the submission did, in its own numbers, before the catalogue's explanation.
_EVIDENCE = {
    "zero_fill_mask": "Your first weight row is {row0}: forbidden scores were set to 0, and exp(0) = 1 still "
                      "lets them in.",
    "mask_after_softmax": "Your weight rows sum to {sums}: future shares were removed after softmax had already "
                          "counted them in the denominator.",
    "no_mask": "Your first weight row is {row0}: the first position took shares from sources after it.",
    "wrong_mask_direction": "Your first weight row is {row0} and your last is {row_last}: the allowed triangle "
                            "is flipped (row = receiving position, lower triangle allowed).",
    "diagonal_excluded": "Your first weight row is {row0}: with the diagonal excluded the first position has "
                         "no allowed source at all.",
    "future_offset": "Your first weight row is {row0}: each position also sees the one right after it.",
    "softmax_wrong_axis": "Your weight rows sum to {sums}: softmax normalised over receivers, not sources.",
    "missing_scale": "Your final weight row is {row_last}, not [0.142857, 0.285714, 0.571429]{scale}.",
    "wrong_scale": "Your final weight row is {row_last}, not [0.142857, 0.285714, 0.571429]{scale}.",
    "swapped_return": "Your first return value has the weights' shape.",
    "dtype_downcast": "float64 inputs came back as {dtype}.",
    "unstable_softmax": "With scores near 1000 your output contains NaN or inf.",
}


def _facts(obs: Observations, scale: str) -> dict[str, str]:
    """Numbers quoted in messages, from the worked example; harmless when it did not run."""
    facts = {"row0": "unavailable", "row_last": "unavailable", "sums": "unavailable", "dtype": "?", "scale": scale}
    reply = obs.reply("we")
    w = reply.tensors.get("weights") if reply.ok else None
    if w is not None and w.dim() == 2 and w.shape[0] >= 1:
        facts |= {"row0": fmt(w[0]), "row_last": fmt(w[-1]), "sums": fmt(w.double().sum(-1))}
    rand = obs.reply("rand.batch.small")
    if rand.ok and "out" in rand.tensors:
        facts["dtype"] = str(rand["out"].dtype).removeprefix("torch.")
    return facts


def fit_scale(obs: Observations) -> float | None:
    """The scale s for which SDPA(scale=s) reproduces the submission's output, if one does."""
    probe = obs.probes.by_id.get("rand.batch.small")
    reply = obs.reply("rand.batch.small")
    if probe is None or not reply.ok or reply["out"].shape != probe.t["v"].shape:
        return None
    got = reply["out"].double()
    if not torch.isfinite(got).all():
        return None

    def error(log_s: float) -> float:
        out, _ = expected.attention(probe.t["q"], probe.t["k"], probe.t["v"], scale=math.exp(log_s))
        return float((out - got).abs().max())

    grid = [i / 20 for i in range(-140, 61)]  # s from 1e-3 to 20
    best = min(grid, key=error)
    lo, hi = best - 0.05, best + 0.05
    for _ in range(40):  # golden-section refinement on log s
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        lo, hi = (lo, b) if error(a) < error(b) else (a, hi)
    s = math.exp((lo + hi) / 2)
    return s if error(math.log(s)) < 1e-6 else None


def _scale_diagnosis(obs: Observations) -> tuple[str, str] | None:
    s = fit_scale(obs)
    if s is None:  # the output matches no scale; the weights may still show one beside another bug
        probe, reply = obs.probes.by_id.get("rand.flat.small"), obs.reply("rand.flat.small")
        if probe is not None and reply.ok and "weights" in reply.tensors:
            s = implied_scale(probe.t["q"], probe.t["k"], reply["weights"])
    if s is None or s <= 0:
        return None
    d_k = obs.probes.by_id["rand.batch.small"].t["q"].shape[-1]
    right = 1 / math.sqrt(d_k)
    if math.isclose(s, right, rel_tol=1e-4):
        return None
    names = {1.0: "no scaling at all", 1 / d_k: "dividing by d_k", math.sqrt(d_k): "multiplying by sqrt(d_k)",
             float(d_k): "multiplying by d_k"}
    how = next((n for v, n in names.items() if math.isclose(s, v, rel_tol=1e-4)), f"a factor of {s:.4g}")
    text = (f": at d_k = {d_k} your output equals attention with scale {s:.4g} ({how}); the chapter divides "
            f"scores by sqrt(d_k), a scale of {right:.4g}")
    return ("missing_scale" if math.isclose(s, 1.0, rel_tol=1e-4) else "wrong_scale"), text


def mask_shape(w: torch.Tensor) -> list[str]:
    """Name the misconceptions a weight matrix's pattern of non-zero cells shows, whatever the scores were.

    Robust to other bugs (a missing scale, say): it reads only where shares are zero and how rows sum.
    """
    if w.dim() != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 3:
        return []
    w = w.double()
    T = w.shape[0]
    ones = torch.ones(T, T, dtype=torch.bool)
    if not torch.isfinite(w).all():
        return ["diagonal_excluded"] if not torch.isfinite(w[0]).all() and torch.isfinite(w[1:]).all() else []
    nonzero = w != 0
    for name, allowed in (("future_offset", ones.tril(1)), ("wrong_mask_direction", ones.triu()),
                          ("diagonal_excluded", ones.tril(-1))):
        if torch.equal(nonzero, allowed):
            return [name]
    rows_one, cols_one = (bool(torch.allclose(t, torch.ones_like(t), atol=1e-6)) for t in (w.sum(-1), w.sum(-2)))
    found = ["softmax_wrong_axis"] if cols_one and not rows_one else []
    if torch.equal(nonzero, ones.tril()):
        rows = w.sum(-1)
        if not cols_one and bool((rows < 1 - 1e-6)[:-1].all()) and abs(float(rows[-1]) - 1) < 1e-6:
            found.append("mask_after_softmax")
    elif bool(nonzero.all()):
        # A zero score gives every forbidden source the same share of its normalising group.
        groups = [w[:j, j] for j in range(1, T)] if found else [w[i, i + 1:] for i in range(T - 1)]
        same = all(bool(torch.allclose(g, g[0].expand_as(g), rtol=1e-9, atol=0)) for g in groups)
        found.append("zero_fill_mask" if same else "no_mask")
    return found


def implied_scale(q: torch.Tensor, k: torch.Tensor, w: torch.Tensor) -> float | None:
    """The factor on q.k that the student's weights imply, from ratios of allowed shares in each row.

    exp(s_ij) / exp(s_i0) = w_ij / w_i0, so each pair of allowed cells gives one estimate of the scale.
    Returns None when the estimates disagree (the weights are not a row softmax of scaled scores).
    """
    if w.dim() != 2 or w.shape != (q.shape[-2], q.shape[-2]) or not torch.isfinite(w).all():
        return None
    raw = q.double() @ k.double().T
    estimates = []
    for i in range(1, w.shape[0]):
        for j in range(1, i + 1):
            gap = float(raw[i, j] - raw[i, 0])
            if w[i, j] > 0 and w[i, 0] > 0 and abs(gap) > 0.1:
                estimates.append(math.log(float(w[i, j]) / float(w[i, 0])) / gap)
    if len(estimates) < 3:
        return None
    mid = sorted(estimates)[len(estimates) // 2]
    return mid if all(abs(e - mid) <= 1e-6 * max(1.0, abs(mid)) for e in estimates) else None


def _structure_diagnoses(obs: Observations) -> list[tuple[str, str]]:
    found = []
    for pid in ("rand.flat.small", "we"):
        reply = obs.reply(pid)
        w = reply.tensors.get("weights") if reply.ok else None
        for name in mask_shape(w) if w is not None else []:
            if name not in [f for f, _ in found]:
                found.append((name, ""))
    return found


def _submission_level(obs: Observations) -> list[tuple[str, str]]:
    load = obs.load_error
    if load is not None:
        kind = load.error_type or ""
        line = f" (line {load.meta['lineno']})" if load.meta.get("lineno") else ""
        mapping = {"SyntaxError": "syntax_error", "SystemExit": "process_exit", "MemoryError": "memory_limit",
                   "timeout": "timeout", "memory_limit": "memory_limit", "process_exit": "process_exit"}
        did = mapping.get(kind, "import_error")
        return [(did, f"Your file could not be loaded: {kind}{line}: {load.error}.")]
    missing = [n for n in obs.required if n not in obs.load_names]
    if missing:
        hints = []
        for name in missing:
            close = difflib.get_close_matches(name, obs.defined, n=1)
            hints.append(f"{name} (did you mean to rename {close[0]}?)" if close else name)
        return [("missing_function", f"Your file does not define {', '.join(hints)}.")]
    errors = [r.error_type for r in obs.replies.values() if not r.ok]
    found = []
    if errors and all(e == "NotImplementedError" for e in errors) and len(errors) == len(obs.replies):
        found.append(("not_implemented", "Nothing is implemented yet: every call raised NotImplementedError. "
                      "Start with the scores, S = Q K^T / sqrt(d_k)."))
    for kind in ("timeout", "memory_limit", "process_exit"):
        if kind in errors or (kind == "memory_limit" and "MemoryError" in errors) or (
                kind == "process_exit" and "SystemExit" in errors):
            found.append((kind, f"A call ended in {kind.replace('_', ' ')}."))
    if "WrongReturnType" in errors:
        first = next(r.error for r in obs.replies.values() if r.error_type == "WrongReturnType")
        found.append(("wrong_return_type", f"causal_attention should return (out, weights): {first}."))
    return found


def diagnose(obs: Observations, outcomes: dict[str, CheckOutcome], catalogue: Catalogue) -> list[Diagnosis]:
    if all(o.status == "passed" for o in outcomes.values()) and obs.load_error is None:
        return []
    found = _submission_level(obs)
    scale = None
    if obs.load_error is None and not any(did == "not_implemented" for did, _ in found):
        for check_id, did in _CHECK_MISCONCEPTION.items():
            if check_id in outcomes and outcomes[check_id].status == "failed":
                found.append((did, outcomes[check_id].feedback))
        found += _structure_diagnoses(obs)
        scale = _scale_diagnosis(obs)
        if scale is not None:
            found.append((scale[0], ""))
        vector = observe_replies({pid: r for pid, r in obs.replies.items() if not pid.startswith("h.")})
        scored = sorted(((match_fraction(vector, m.fingerprint), mid)
                         for mid, m in catalogue.misconceptions.items() if m.fingerprint), reverse=True)
        found += [(mid, "") for score, mid in scored if score >= MATCH_THRESHOLD]
    facts = _facts(obs, scale[1] if scale else "")
    diagnoses, seen = [], set()
    for did, said in found:
        if did in seen or did not in catalogue.misconceptions:
            continue
        seen.add(did)
        m = catalogue.misconceptions[did]
        evidence = said or _EVIDENCE.get(did, "").format_map(facts)
        # import_error is also where unreadable files and garbled pipes land: explain only a real import.
        odd = did == "import_error" and obs.load_error is not None and \
            obs.load_error.error_type not in ("ImportError", "ModuleNotFoundError")
        message = " ".join(p for p in (evidence, "" if odd else m.explanation) if p)
        diagnoses.append(Diagnosis(id=did, title=m.title, message=message, section=m.section))
    return diagnoses[:MAX_DIAGNOSES]
