"""What a submission's own replies show, read without its code: tensor-level predicates.

Each reader takes the submission's observations and returns the facts it quotes (short strings,
the submission's own numbers) or None when its misconception is not there. Readers see only the
visible probes: a message may quote their inputs, never a hidden one's.
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

from grader.checks.base import CheckOutcome
from grader.checks.contract import MISMATCH
from grader.checks.observations import Observations, fmt, value_width_split
from grader.diagnosis.fingerprint import Compiled, StudentVector
from grader.probes import RANDOM_BATCH, Probe, describe, expected
from grader.probes.replies import Reply
from grader.probes.replies import at_line as observed_at_line
from grader.probes.replies import source_line as observed_line
from grader.vocabulary import (
    FORBIDDEN_API,
    MEMORY_LIMIT,
    NOT_RAISED,
    PROCESS_EXIT,
    PROCESS_FAILURES,
    PROTOCOL_ERROR,
    SUBMISSION_REFUSED,
    TIMEOUT,
    UNREADABLE,
    WRONG_RETURN_TYPE,
)

Facts = dict[str, str]
# The fact that names the probe a message quotes, for the claims that check it (grader/diagnosis/claims.py);
# no message template uses it, so no probe id reaches a student.
PROBE = "_probe"

# A reply's weights count as a row softmax when rows sum to one this closely.
SUM_ATOL = 1e-6
# Scores (after the chapter's scale) beyond which exp overflows: float32 ~88.7, float64 ~709.8.
OVERFLOW = {torch.float32: 88.0, torch.float64: 709.0}


@dataclass
class Context:
    """Everything a reader may look at; computed values are memoised per submission."""

    obs: Observations
    outcomes: dict[str, CheckOutcome]
    fingerprints: dict[str, Compiled] = field(default_factory=dict)  # Catalogue.compiled()
    refused: dict[str, list[str]] = field(default_factory=dict)  # misconception id -> claims its evidence refuted
    _memo: dict = field(default_factory=dict)

    def memo(self, key: str, compute):
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def attention(self, *, families: tuple[str, ...] | None = None) -> Iterator[tuple[Probe, Reply]]:
        """Visible attention probes (not the shape-error ones) and their replies."""
        for probe in self.obs.probes.probes:
            if probe.hidden or probe.target != "attention":
                continue
            # Not the shape errors, nor the head's projections (the single_head check's own comparison).
            if probe.family in ("shape", "head_attention") or (families is not None and probe.family not in families):
                continue
            yield probe, self.obs.reply(probe.id)


# ---------------------------------------------------------------- small helpers


def shape(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def sizes(probe: Probe) -> dict[str, int]:
    q, v = probe.t["q"], probe.t["v"]
    return {"T": q.shape[-2], "d_k": q.shape[-1], "d_v": v.shape[-1]}


def inputs(probe: Probe) -> str:
    """How a call is described to a student: the entry point and its input shapes."""
    t = probe.t
    if probe.hidden:  # never its sizes: a student must not learn a hidden probe
        return f"causal_attention on {describe(probe)}"
    if probe.target == "head":
        m = probe.call.meta
        args = ", ".join(str(m[n]) for n in ("n_embd", "d_k") ) + (f", {m['d_v']}" if m.get("d_v") else "")
        return f"SingleHead({args}) on x of shape {shape(t['x'])}"
    return f"causal_attention on q {shape(t['q'])}, k {shape(t['k'])}, v {shape(t['v'])}"


def _fit(t: torch.Tensor, want: tuple[int, ...]) -> torch.Tensor | None:
    """t read as shape `want`: as it is, or without extra leading dimensions of size one."""
    if tuple(t.shape) == want:
        return t
    if t.dim() > len(want) and tuple(t.shape[t.dim() - len(want):]) == want and t.numel() == math.prod(want):
        return t.reshape(want)
    return None


def pair(reply: Reply, probe: Probe) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(out, weights) as the probe asks for them, read through an unambiguous interface slip:
    the pair returned in the other order, or an extra leading dimension of size one."""
    if not reply.ok or not {"out", "weights"} <= reply.tensors.keys():
        return None
    q, v = probe.t["q"], probe.t["v"]
    want_out, want_w = (*q.shape[:-1], v.shape[-1]), (*q.shape[:-1], q.shape[-2])
    first, second = reply.tensors["out"], reply.tensors["weights"]
    for out, w in ((first, second), (second, first)):
        out, w = _fit(out, want_out), _fit(w, want_w)
        if out is not None and w is not None:
            return out.detach(), w.detach()
    return None


def weights(reply: Reply, probe: Probe) -> torch.Tensor | None:
    """The returned weights, shaped (..., T, T) as the probe asks (see `pair`)."""
    read = pair(reply, probe)
    return None if read is None else read[1].double()


def output(reply: Reply, probe: Probe) -> torch.Tensor | None:
    """The returned output, shaped (..., T, d_v) as the probe asks (see `pair`)."""
    read = pair(reply, probe)
    return None if read is None else read[0]


def first_slice(t: torch.Tensor) -> torch.Tensor:
    """The first (T, T) matrix of a batched tensor."""
    while t.dim() > 2:
        t = t[0]
    return t


def number(x: float) -> str:
    """A number as a student would write it: 0, -10000, 0.333333, 1e+09."""
    if x == 0 or abs(x) < 1e-9:
        return "0"
    return f"{x:.6g}"


def scaled_scores(probe: Probe) -> torch.Tensor:
    q, k = probe.t["q"].double(), probe.t["k"].double()
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


# ---------------------------------------------------------------- how the file failed as a whole


def source_line(obs: Observations, lineno: int | None) -> str | None:
    return observed_line(obs.source, lineno)


def at_line(obs: Observations, lineno: int | None) -> str:
    return observed_at_line(obs.source, lineno)


def load_failure(obs: Observations, kinds: tuple[str, ...]) -> Reply | None:
    load = obs.load_error
    return load if load is not None and (load.error_type or "") in kinds else None


def syntax_error(ctx: Context) -> Facts | None:
    load = load_failure(ctx.obs, ("SyntaxError", "IndentationError", "TabError"))
    if load is None:
        return None
    return {"message": (load.error or "invalid syntax").rstrip("."), "where": at_line(ctx.obs, load.lineno)}


_NO_MODULE = re.compile(r"No module named '([^']+)'")
_NO_NAME = re.compile(r"cannot import name '([^']+)' from '([^']+)'")
# Load failures that are a verdict on the process, or not about the code at all.
_NOT_IMPORT = ("SyntaxError", "IndentationError", "TabError", "SystemExit", "MemoryError", TIMEOUT, MEMORY_LIMIT,
               PROCESS_EXIT)


def import_error(ctx: Context) -> Facts | None:
    load = ctx.obs.load_error
    if load is None or (load.error_type or "") in _NOT_IMPORT:
        return None
    where = at_line(ctx.obs, load.lineno)
    message = (load.error or "").rstrip(".")
    if load.error_type in (UNREADABLE, SUBMISSION_REFUSED):
        return {"what": f"The grader could not open your file: {message}."}
    if load.error_type == PROTOCOL_ERROR:
        return {"what": f"Importing your file did not produce a valid reply ({message})."}
    if m := _NO_MODULE.search(message):
        module = m.group(1)
        return {"what": f"Your file imports `{module}`{where}, and no module of that name exists where it is "
                        f"graded (ModuleNotFoundError). Your file is graded on its own: a helper module you wrote "
                        f"must be pasted into it, and only the grading environment's packages can be imported."}
    if m := _NO_NAME.search(message):
        return {"what": f"Your file imports `{m.group(1)}` from `{m.group(2)}`{where}, which does not provide it "
                        f"(ImportError)."}
    return {"what": f"Importing your file raised {load.error_type}{where}: {message}. Code at the top level of the "
                    f"file runs when it is imported, so an error there stops everything."}


def defined_names(obs: Observations) -> list[str]:
    """Top-level functions and classes the source defines (parsed, never run)."""
    try:
        tree = ast.parse(obs.source)
    except SyntaxError:
        return list(obs.defined)
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


def missing_function(ctx: Context) -> Facts | None:
    obs = ctx.obs
    if obs.load_error is not None:
        return None
    missing = [n for n in obs.required if n not in obs.load_names]
    if not missing:
        return None
    import difflib

    defined = defined_names(obs)
    if not obs.source.strip():
        has = "Your file is empty: it defines nothing"
    elif not defined:
        has = "Your file defines no function or class"
    else:
        shown = ", ".join(f"`{n}`" for n in defined[:8]) + (" and more" if len(defined) > 8 else "")
        has = f"Your file defines {shown}"
    hints = []
    for name in missing:
        close = difflib.get_close_matches(name, [d for d in defined if d not in obs.required], n=1)
        hints.append(f"`{name}` (is `{close[0]}` meant to be it?)" if close else f"`{name}`")
    return {"has": has, "missing": " and ".join(hints)}


def _first_failure(ctx: Context, kinds: tuple[str, ...]) -> tuple[Probe, Reply] | None:
    """The first visible call that ended this way by itself (not one skipped after another failed)."""
    for probe in ctx.obs.probes.visible():
        reply = ctx.obs.reply(probe.id)
        if not reply.ok and reply.error_type in kinds and not reply.skipped:
            return probe, reply
    return None


def _during(ctx: Context, kinds: tuple[str, ...]) -> tuple[str, Reply] | None:
    """Where a whole-process failure happened: while importing, or in which call."""
    load = load_failure(ctx.obs, kinds)
    if load is not None:
        return "Importing your file", load
    found = _first_failure(ctx, kinds)
    if found is None:
        return None
    probe, reply = found
    return f"Your {inputs(probe)}", reply


def _detail(reply: Reply) -> str:
    """The sandbox's own words, without the bookkeeping prefix (a skipped call is never quoted)."""
    return (reply.error or "").removeprefix("while importing: ")


def timeout(ctx: Context) -> Facts | None:
    found = _during(ctx, (TIMEOUT,))
    if found is None:
        return None
    who, reply = found
    return {"who": who, "limit": _detail(reply)}


_ALLOCATE = re.compile(r"tried to allocate (\d+) bytes")


def memory_limit(ctx: Context) -> Facts | None:
    found = _during(ctx, (MEMORY_LIMIT, "MemoryError"))
    if found is None:
        return None
    who, reply = found
    if m := _ALLOCATE.search(reply.error or ""):
        size = int(m.group(1))
        limit = f"tried to allocate {size / 2**30:.3g} GiB in one tensor, more than the sandbox allows"
    elif reply.error_type == "MemoryError":
        limit = f"raised MemoryError ({(reply.error or '').strip()[:160]})"
    else:
        limit = f"was stopped: {_detail(reply)}"
    return {"who": who, "limit": limit}


def process_exit(ctx: Context) -> Facts | None:
    load = load_failure(ctx.obs, ("SystemExit", PROCESS_EXIT))
    if load is not None:
        if load.error_type == "SystemExit":
            code = (load.error or "").strip() or "None"
            how = f"called sys.exit({code}){at_line(ctx.obs, load.lineno)}"
        else:
            how = f"ended the process ({_detail(load)})"
        return {"what": f"Importing your file {how}, so the process ended before anything could be checked. "
                        f"Code at the top level runs on import: keep self-tests under "
                        f"`if __name__ == \"__main__\":`."}
    found = _first_failure(ctx, (PROCESS_EXIT, "SystemExit"))
    if found is None:
        return None
    probe, reply = found
    how = "called sys.exit" if reply.error_type == "SystemExit" else f"ended the process ({_detail(reply)})"
    return {"what": f"Your {inputs(probe)} {how} instead of returning."}


def not_implemented(ctx: Context) -> Facts | None:
    """Stubs not written yet, as the reports' TO DO rows read them (Observations.not_written)."""
    if ctx.obs.load_error is not None:
        return None
    stubs = ctx.obs.not_written()
    if "causal_attention" in stubs:
        what = ("Nothing is implemented yet: every call raised NotImplementedError" if "SingleHead" in stubs
                else "causal_attention still raises NotImplementedError")
        return {"what": what, "next": "Start with the scores, S = Q K^T / sqrt(d_k), as in the chapter's Part 2."}
    if "SingleHead" in stubs:
        if _untouched_init(ctx.obs.source):
            return None  # the next task, not begun: its TO DO line says all there is to say
        return {"what": "SingleHead still raises NotImplementedError",
                "next": "It projects x into queries, keys and values with three Linear layers and hands them to your "
                        "causal_attention, as in the chapter's Part 4."}
    return None


def _untouched_init(source: str) -> bool:
    """SingleHead.__init__ still only raises NotImplementedError (the template's stub, not begun)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SingleHead"):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
            body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            return any(isinstance(n, ast.Raise) for n in body) and all(
                isinstance(n, ast.Raise) or (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                                             and "super" in ast.dump(n.value)) for n in body)
    return False


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
    empty = ~torch.isfinite(w).all(-1)
    nonzero = (w != 0) & ~empty[:, None]
    if empty.any() and not torch.isfinite(w[~empty]).all():
        return []
    for name, allowed in _misplaced_masks(T):
        no_source = ~allowed.any(-1)
        if torch.equal(nonzero, allowed) and bool((empty <= no_source).all()):
            return [name]
    if empty.any():
        return []
    rows_one, cols_one = (bool(torch.allclose(t, torch.ones_like(t), atol=SUM_ATOL)) for t in (w.sum(-1), w.sum(-2)))
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


@functools.cache  # the same few lengths for every submission; callers only read the masks
def _misplaced_masks(T: int) -> list[tuple[str, torch.Tensor]]:
    """Allowed patterns of the mask bugs: a triangle shifted, flipped, or without its diagonal."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return ([("future_offset", ones.tril(d)) for d in range(1, T - 1)]
            + [("wrong_mask_direction", ones.triu(d)) for d in range(0, T)]
            + [("diagonal_excluded", ones.tril(-d)) for d in range(1, T)])


def future_offset(w: torch.Tensor) -> int:
    """How many positions ahead a row sees (0 for a causal mask)."""
    rows, cols = torch.nonzero(w.nan_to_num(0.0) != 0, as_tuple=True)
    return int((cols - rows).max()) if len(rows) else 0


def mask_findings(ctx: Context) -> dict[str, tuple[Probe, torch.Tensor]]:
    """Each mask misconception seen, with the first probe (worked example first) that shows it."""

    def compute():
        seen = []
        for probe, reply in ctx.attention(families=("worked", "rand", "leak")):
            w = weights(reply, probe)
            if w is None or not probe.t["q"].any():
                continue  # zero queries make every score equal: no fill can be told from no mask
            names = mask_shape(first_slice(w))
            if names:
                seen.append((probe, first_slice(w), names))
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
    estimates = []
    for i in range(w.shape[0] - 1):
        for j in range(i + 1, w.shape[0]):
            if w[i, j] > 0 and w[i, i] > 0:
                estimates.append(math.log(float(w[i, j]) / float(w[i, i])) + s * float(q[i] @ k[i]))
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


# ---------------------------------------------------------------- which axis softmax normalised


def normalised_axes(w: torch.Tensor) -> list[int]:
    """The dims (negative indices) along which the weights sum to one where the causal mask allows."""
    allowed = torch.ones(w.shape[-1], w.shape[-1], dtype=torch.bool).tril()
    clean = w.double().nan_to_num(0.0, posinf=0.0, neginf=0.0)
    axes = []
    for d in range(-w.dim(), 0):
        sums = clean.sum(d)
        if d < -2:
            sums = sums[..., allowed]  # forbidden cells may be NaN along a batch axis
        if sums.numel() and bool(torch.allclose(sums, torch.ones_like(sums), atol=SUM_ATOL, rtol=0)):
            axes.append(d)
    return axes


AXIS_NAMES = {-1: "the sources (the last dim)", -2: "the receiving positions"}


def _axis_name(d: int, ndim: int) -> str:
    if d in AXIS_NAMES:
        return AXIS_NAMES[d]
    lead = ndim - 2
    return "the batch items" if lead == 1 or d == -ndim else "the heads"


def softmax_wrong_axis(ctx: Context) -> Facts | None:
    wrong, right = None, []
    for probe, reply in ctx.attention(families=("rand", "worked")):
        w = weights(reply, probe)
        if w is None or probe.t["q"].shape[-2] < 2:
            continue
        axes = normalised_axes(w)
        if -1 in axes:
            right.append(probe)
        elif axes and wrong is None:
            wrong = (probe, w, axes[0])
    if wrong is None:
        return None
    probe, w, d = wrong
    dim = w.dim() + d
    facts = {"shape": shape(w), "dim": str(dim), "axis": _axis_name(d, w.dim())}
    if any(p.t["q"].dim() != probe.t["q"].dim() for p in right):
        flat = min(p.t["q"].dim() for p in right)
        facts["only"] = (f" With {flat - 2 or 'no'} batch dimension{'s' if flat - 2 > 1 else ''} your rows do sum "
                         f"to one: dim={dim} names the source axis only for some inputs; dim=-1 always does.")
    else:
        facts["only"] = ""
    return facts


# ---------------------------------------------------------------- the scale applied to q . k


def implied_scale(q: torch.Tensor, k: torch.Tensor, w: torch.Tensor) -> float | None:
    """The factor on q.k that the student's weights imply, from ratios of allowed shares in each row.

    exp(s_ij) / exp(s_i0) = w_ij / w_i0, so each pair of allowed cells gives one estimate of the scale.
    Batched inputs are read slice by slice. Returns None when the estimates disagree (the weights are
    not a row softmax of scaled scores) or are too few.
    """
    if w.shape[-2:] != (q.shape[-2], q.shape[-2]) or w.shape[:-2] != q.shape[:-2] or not torch.isfinite(w).all():
        return None
    T = q.shape[-2]
    raw = (q.double() @ k.double().transpose(-2, -1)).reshape(-1, T, T)
    w = w.double().reshape(raw.shape)
    gap = raw - raw[..., :1]  # s_ij - s_i0
    first = w[..., :1].expand_as(w)
    # Cells (i, j) with 1 <= j <= i: allowed under the mask, and not the row's first cell itself.
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    allowed[:, 0] = False
    usable = allowed & (w > 0) & (first > 0) & (gap.abs() > 0.1)
    estimates = (torch.log(w[usable] / first[usable]) / gap[usable]).tolist()
    if len(estimates) < 3:
        return None
    mid = sorted(estimates)[len(estimates) // 2]
    return mid if all(abs(e - mid) <= 1e-6 * max(1.0, abs(mid)) for e in estimates) else None


def fit_scale(probe: Probe, reply: Reply) -> float | None:
    """The scale s for which SDPA(scale=s) reproduces the submission's output, if one does."""
    got = output(reply, probe)
    if got is None:
        return None
    got = got.double()
    if not torch.isfinite(got).all():
        return None
    q, k, v = probe.t["q"], probe.t["k"], probe.t["v"]

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
            s = implied_scale(probe.t["q"], probe.t["k"], w) if w is not None else None
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
            return ScaleReading("constant", f"a constant {number(s)}{_as_root(s)} whatever d_k", probe, s, right)
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
                          f"d_v = {z2['d_v']} it is {number(s2)}{_as_root(s2)})")
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


def _worked_constant(reading: ScaleReading) -> bool:
    """A constant scale that is the worked example's own 1/sqrt(2): its d_k written as a number."""
    return reading.formula == "constant" and math.isclose(reading.scale, 1 / math.sqrt(2), rel_tol=1e-4)


def _as_root(s: float) -> str:
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
    if reading is None or reading.missing or _worked_constant(reading):
        return None
    return scale_facts(reading)


def missing_scale(ctx: Context) -> Facts | None:
    reading = read_scale(ctx)
    return scale_facts(reading) if reading is not None and reading.missing else None


# ---------------------------------------------------------------- sizes written as numbers


def hardcoded_shape(ctx: Context) -> Facts | None:
    """Works at one sequence length only (or up to one): crashes at the others, or masks right only there.

    Hidden probes count as evidence here, but only visible ones are quoted.
    """
    probes = [p for p in ctx.obs.probes.probes if p.family != "shape" and p.target in ("attention", "head")]
    replies = [(p, ctx.obs.reply(p.id)) for p in probes]
    ran = [p for p, r in replies if r.ok]
    crashed = [(p, r) for p, r in replies if not r.ok and r.error_type not in NOT_RAISED]
    good, bad = {p.length for p in ran}, {p.length for p, _ in crashed}
    if crashed and good and not good & bad and (len(good) == 1 or max(good) < min(bad)):
        shown = next(((p, r) for p, r in crashed if not p.hidden), None)
        seen = sorted({p.length for p, _ in crashed if not p.hidden})
        if len(good) == 1:
            (t0,) = good
            what = f"Your code runs only when T = {t0}: every call with another length"
        else:
            what = f"Your code runs only up to T = {max(good)}: every call with a longer sequence"
        what += f" (T = {', '.join(map(str, seen))})" if seen else ""
        if shown is not None:
            p, r = shown
            what += f" failed, the first ({inputs(p)}) with {r.error_type}{r.where}: {(r.error or '').strip()[:200]}"
        else:
            what += f" failed with {crashed[0][1].error_type}"
        return {"what": what}
    # A mask right at one length and wrong at the others.
    right, wrong = set(), set()
    for p, r in ctx.attention():
        w = weights(r, p)
        if w is None:
            continue
        T = w.shape[-1]
        causal = bool(((first_slice(w) != 0) == torch.ones(T, T, dtype=torch.bool).tril()).all())
        (right if causal else wrong).add(T)
    if len(right) == 1 and wrong and not (right & wrong):
        (t0,) = right
        return {"what": f"Your mask is right only when T = {t0}: at T = {', '.join(map(str, sorted(wrong)))} "
                        f"the pattern of zero weights is not the lower triangle"}
    reading = read_scale(ctx)
    if reading is not None and _worked_constant(reading):
        return {"what": f"Your scores are scaled by {number(reading.scale)}{_as_root(reading.scale)} whatever "
                        f"d_k: at d_k = {sizes(reading.probe)['d_k']} the scale should be 1/sqrt(d_k) = "
                        f"{number(reading.right)}"}
    return None


def value_width_assumed(ctx: Context) -> Facts | None:
    """Raised on exactly the calls whose d_v differs from d_k (Observations.value_width_split)."""
    split = value_width_split(ctx.obs)
    if split is None:
        return None
    ran, raised = split
    probe, reply = raised[0]
    z = sizes(probe)
    worked = ", the worked example among them," if any(p.worked for p in ran) else ""
    return {"ran": str(len(ran)), "worked": worked, "on": inputs(probe), "d_v": str(z["d_v"]), "d_k": str(z["d_k"]),
            "raised": reply.raised.strip()[:300], PROBE: probe.id}


def call_raises(ctx: Context) -> Facts | None:
    """A call on inputs the contract allows raised an exception of the submission's own."""
    calls = [(p, ctx.obs.reply(p.id)) for p in ctx.obs.probes.visible()
             if p.family != "shape" and p.target in ("attention", "head")]
    raised = [(p, r) for p, r in calls if not r.ok and r.error_type not in NOT_RAISED and not r.skipped]
    if not raised:
        return None
    probe, reply = raised[0]
    share = "Every call" if len(raised) == len(calls) else f"{len(raised)} of {len(calls)} calls"
    raised_text = reply.raised.strip()[:300]
    # Only where the reply names a line of the file: an error the grader's own check raised (a layer of the
    # wrong width) has no line of the student's to point at.
    line_note = (" The line quoted is where your own code raised, even when the error comes from inside torch."
                 if " line " in raised_text and "(`" in raised_text else "")
    return {"on": inputs(probe), "raised": raised_text, "share": share, "line_note": line_note, PROBE: probe.id}


# ---------------------------------------------------------------- numerics


def unstable_softmax(ctx: Context) -> Facts | None:
    """NaN or inf only where scores are large enough to overflow exp, finite everywhere else."""
    overflowed, calm = None, []
    for probe, reply in ctx.attention():
        read = pair(reply, probe)
        if read is None:
            continue
        out, w = read
        top = float(scaled_scores(probe).abs().max())
        limit = OVERFLOW.get(probe.t["q"].dtype, 88.0)
        finite = bool(torch.isfinite(out).all()) and bool(torch.isfinite(w).all())
        if top > limit and not finite and overflowed is None:
            overflowed = (probe, out, top)
        elif top < limit / 4:
            calm.append(finite)
    if overflowed is None or not calm or not all(calm):
        return None
    probe, out, top = overflowed
    bad = int((~torch.isfinite(out)).sum())
    return {"at": f"{inputs(probe)}, where scores reach about {number(round(top))}", PROBE: probe.id,
            "bad": f"{bad} of {out.numel()}", "dtype": str(probe.t["q"].dtype).removeprefix("torch.")}


# exp(x) is exactly 0 below about -745 in float64 and -103 in float32; the margins keep a row near the
# edge out of either set, so a row is named only where the two explanations cannot both hold.
UNDERFLOW = {torch.float32: (95.0, 110.0), torch.float64: (730.0, 760.0)}


def row_max_includes_future(ctx: Context) -> Facts | None:
    """NaN exactly in the rows where the largest score is a forbidden one far above every allowed one:
    exp(allowed - max over all positions) underflows to 0 for every allowed source, and 0 / 0 is NaN.
    Overflow (no maximum subtracted) would put NaN where an allowed score is large instead."""
    for probe, reply in ctx.attention(families=("rand", "worked")):
        read = pair(reply, probe)
        if read is None:
            continue
        out, _ = read
        scores = scaled_scores(probe)
        T = scores.shape[-1]
        allowed = torch.ones(T, T, dtype=torch.bool).tril()
        top_allowed = torch.where(allowed, scores, -math.inf).amax(-1)  # (..., T)
        gap = scores.amax(-1) - top_allowed
        nan_rows = ~torch.isfinite(out.double()).all(-1)
        low, high = UNDERFLOW.get(probe.t["q"].dtype, UNDERFLOW[torch.float64])
        overflow = top_allowed > OVERFLOW.get(probe.t["q"].dtype, 88.0)
        if not bool(nan_rows.any()) or bool((nan_rows & overflow).any()):
            continue
        if bool((nan_rows <= (gap > low)).all()) and bool(((gap > high) <= nan_rows).all()):
            where = torch.nonzero(nan_rows)[0].tolist()
            row = where[-1]
            return {"on": inputs(probe), "bad": f"{int(nan_rows.sum())} of {nan_rows.numel()}", PROBE: probe.id,
                    "row": str(row), "gap": number(round(float(gap[tuple(where)])))}
    return None


def dtype_downcast(ctx: Context) -> Facts | None:
    """float64 in, float32 out; or float64 out that is right only to float32's rounding."""
    precision = ctx.outcomes.get("precision")
    if precision is not None and precision.status == "failed":  # the check's own measured finding
        return {"what": precision.feedback.split(". ")[0].rstrip(".")}
    errors = []
    for probe, reply in ctx.attention(families=("worked", "rand")):
        got = output(reply, probe)
        if probe.t["q"].dtype != torch.float64 or got is None:
            continue
        if got.dtype != torch.float64:
            return {"what": f"float64 inputs came back as {str(got.dtype).removeprefix('torch.')} ({inputs(probe)})"}
        scales = probe_scales(ctx)  # measured at the scale the code uses, so a wrong one hides nothing
        scale = scales.get(probe.id)
        if scale is None and scales and read_scale(ctx) is not None:
            continue  # a wrong scale elsewhere and none readable here: its error would be the scale's
        # (With the chapter's scale wherever one was read, a probe whose scale cannot be read is held to
        # the chapter's values: its weights are no softmax of scaled scores, which is no rounding.)
        if scale is None:
            want = probe.expected()[0]
        else:
            # A read scale carries the estimate's own error; the formula it matches has none.
            dims = sizes(probe)
            exact = [f(dims["T"], dims["d_k"], dims["d_v"]) for _, _, f in SCALE_FORMULAS]
            scale = next((e for e in exact if abs(e - scale) <= 1e-9 * abs(e)), scale)
            want = expected.attention(probe.t["q"], probe.t["k"], probe.t["v"], scale=scale)[0]
        if got.shape != want.shape or not torch.isfinite(got).all():
            return None
        errors.append((float((got - want).abs().max()) / max(1.0, float(want.abs().max())), probe))
    if not errors:
        return None
    worst, probe = max(errors, key=lambda e: e[0])
    # Rounding of a float32 step (about 1e-7), never a wrong formula (1e-2 and more), never float64
    # (1e-16, or about 1e-12 at a scale read from the weights rather than a formula).
    if 1e-9 < worst < 1e-4:
        return {"what": f"Your float64 results are right only to about {worst:.1e} ({inputs(probe)}), the size of "
                        f"float32 rounding, where float64 attention agrees to about 1e-16: part of your "
                        f"computation runs in float32"}
    return None


def hard_attention(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention(families=("rand",)):
        w = weights(reply, probe)
        if w is None or w.shape[-1] < 3:
            continue
        one_hot = bool(((w == 0) | (w == 1)).all()) and bool((w.sum(-1) == 1).all())
        return {"row_last": fmt(first_slice(w)[-1]), "T": str(w.shape[-1])} if one_hot else None
    return None


def out_not_from_weights(ctx: Context) -> Facts | None:
    """Its out is not its own weights times v: the output was computed from other shares (before the
    mask, transposed, ...) than the weights it returns. Compared with itself, on the worked example."""
    probe = ctx.obs.probes.worked
    read = pair(ctx.obs.reply(probe.id), probe)
    if read is None:
        return None
    out, w = (t.double() for t in read)
    if not (bool(torch.isfinite(w).all()) and bool(torch.isfinite(out).all())):
        return None
    blended = w @ probe.t["v"].double()
    gap = (out - blended).abs().amax(-1)
    if float(gap.max()) <= 1e-5 * max(1.0, float(blended.abs().max())):
        return None
    row = int(gap.argmax())
    return {"row": str(row), "mine": fmt(blended[row]), "out": fmt(out[row])}


_ROLES = ("query", "key", "value")


def head_wiring(ctx: Context) -> Facts | None:
    """SingleHead hands its projections to attention in the wrong roles: its output is attention on
    a permutation of (x W_query^T, x W_key^T, x W_value^T), while its own causal_attention on those
    projections in their right roles is right, so the head, not the function, is what differs."""
    for probe in ctx.obs.probes.family("head"):
        projections = ctx.obs.probes.own_attention(probe)  # x @ W^T for query, key and value
        if probe.hidden or projections is None:
            continue
        reply, own = ctx.obs.reply(probe.id), ctx.obs.reply(projections.id)
        if not (reply.ok and own.ok):
            continue
        proj = dict(zip(_ROLES, (projections.t[n].double() for n in "qkv"), strict=True))
        right = probe.expected_head()["out"]  # what single_head compared with
        got, mine = reply.tensors.get("out"), output(own, projections)
        if got is None or mine is None or got.shape != right.shape or mine.shape != right.shape:
            continue
        got, mine = got.double(), mine.double()
        if not torch.allclose(mine, right, atol=1e-8) or torch.allclose(got, right, atol=1e-8):
            continue  # its causal_attention is wrong here (the attention checks say so), or the head is right
        # Any projection in any role, one used twice included (keys from self.query, say).
        for order in itertools.product(_ROLES, repeat=3):
            a, b, c = (proj[r] for r in order)
            if order == _ROLES or a.shape[-1] != b.shape[-1] or c.shape[-1] != right.shape[-1]:
                continue
            if torch.allclose(expected.attention(a, b, c)[0], got, atol=1e-8):
                given = [f"the {r} projection as the {want}" for r, want in zip(order, _ROLES, strict=True) if r != want]
                return {"wiring": " and ".join(given), "x": str(tuple(probe.t["x"].shape)), PROBE: probe.id,
                        "unused": ", ".join(r for r in _ROLES if r not in order)}
    return None


def detached_graph(ctx: Context) -> Facts | None:
    for probe in ctx.obs.probes.family("grad"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or not reply.ok:
            continue
        missing = ["q", "k", "v"] if reply.grad == "detached" else list(reply.grad_missing)
        if missing:
            return {"missing": ", ".join(missing)}
    wiring = ctx.memo("head_wiring", lambda: head_wiring(ctx))
    unused = set((wiring or {}).get("unused", "").split(", ")) - {""}
    for probe in ctx.obs.probes.family("head"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or not reply.ok:
            continue
        # A projection the head never hands to attention gets no gradient: that is its wiring, not a cut.
        missing = [n for n in reply.grad_missing if n not in unused]
        if reply.grad == "detached" or missing:
            return {"missing": ", ".join(f"SingleHead.{n}" for n in missing) or "any projection"}
    return None


# ---------------------------------------------------------------- batches and the contract


def batch_mixing(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention(families=("leak",)):
        if probe.info.get("kind") != "other_items":
            continue
        base_probe = ctx.obs.probes.base(probe)
        base = output(ctx.obs.reply(base_probe.id), base_probe) if base_probe is not None else None
        changed = output(reply, probe)
        if base is None or changed is None:
            return None  # another shape cannot be read item by item
        items = probe.info.get("items_fixed", 1)
        before, after = base[:items].double(), changed[:items].double()
        finite = torch.isfinite(before) & torch.isfinite(after)
        if not finite.any():
            return None
        moved = float((after - before)[finite].abs().max())
        if moved > 1e-9 * max(1.0, float(before[finite].abs().max())):
            return {"moved": number(moved), "B": str(probe.t["q"].shape[0])}
    return None


def swapped_return(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention():
        # The runner reads an unambiguous (weights, out) through and says so; the replies are in order.
        if reply.ok and "swapped" in reply.slips:
            return {"first": shape(reply["weights"]), "second": shape(reply["out"]), "on": inputs(probe)}
    for probe, reply in ctx.attention(families=("rand",)):
        z = sizes(probe)
        if not reply.ok or z["T"] == z["d_v"]:
            continue
        lead = tuple(probe.t["q"].shape[:-2])
        out, w = reply.tensors["out"], reply.tensors["weights"]
        if tuple(out.shape) == (*lead, z["T"], z["T"]) and tuple(w.shape) == (*lead, z["T"], z["d_v"]):
            return {"first": shape(out), "second": shape(w), "on": inputs(probe)}
    return None


def wrong_return_type(ctx: Context) -> Facts | None:
    listed = next((p for p, r in ctx.attention() if "list" in r.slips), None)
    if listed is not None:  # read through as a pair by the runner, still not the tuple the contract asks
        return {"what": "a list instead of a tuple", "on": inputs(listed)}
    found = next(((p, r) for p, r in ctx.attention() if r.error_type == WRONG_RETURN_TYPE), None)
    if found is None:
        return None
    probe, reply = found
    return {"what": (reply.error or "").rstrip("."), "on": inputs(probe)}


def inputs_mutated(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention():
        if not reply.ok:
            continue
        for name in "qkv":
            after = reply.tensors.get(f"{name}_after")
            sent = probe.t[name]
            if after is None or after.shape != sent.shape:
                continue
            diff = (after.double() - sent.double()).abs().nan_to_num(nan=math.inf)
            if float(diff.max()) > 0:
                return {"name": name, "on": inputs(probe), "by": number(float(diff.max()))}
    return None


def no_shape_validation(ctx: Context) -> Facts | None:
    """A mismatched call that returned a result (or raised something other than ValueError),
    from a function that does return results on well-shaped inputs."""
    if not any(reply.ok for _, reply in ctx.attention()):
        return None
    for probe in ctx.obs.probes.family("shape"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or reply.error_type in PROCESS_FAILURES:
            continue
        kind = MISMATCH.get(probe.info.get("mismatch"), "mismatched shapes")
        if reply.ok:
            return {"on": inputs(probe), "kind": kind, "did": "returned a result without an error", PROBE: probe.id}
        if reply.error_type != "ValueError" and "ValueError" not in reply.mro:
            return {"on": inputs(probe), "kind": kind, "did": f"raised {reply.error_type}, not ValueError",
                    PROBE: probe.id}
    return None



def forbidden_api(ctx: Context) -> Facts | None:
    outcome = ctx.outcomes.get("forbidden_api")
    tripped = [pid for pid, r in ctx.obs.replies.items() if r.error_type == FORBIDDEN_API]
    if tripped:
        return {"what": f"At run time your code called PyTorch's ready-made attention ({len(tripped)} calls "
                        f"stopped by the grader)"}
    if outcome is not None and outcome.status == "failed":
        return {"what": outcome.feedback.split(". ")[0].rstrip(".")}
    return None


# ---------------------------------------------------------------- fingerprints


def matches_fingerprint(ctx: Context, mid: str, threshold: float) -> bool:
    fingerprint = ctx.fingerprints.get(mid)
    if not fingerprint:
        return False
    vector = ctx.memo("vector", lambda: StudentVector.of_replies(
        {pid: r for pid, r in ctx.obs.replies.items() if not _hidden(ctx, pid)},
        keys={key for fp in ctx.fingerprints.values() for key, _ in fp}))
    return vector.match_fraction(fingerprint) >= threshold


def _hidden(ctx: Context, pid: str) -> bool:
    probe = ctx.obs.probes.by_id.get(pid)
    return probe is not None and probe.hidden
