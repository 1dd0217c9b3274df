"""What every evidence reader may look at: the submission's observations, its checks' outcomes and
the fingerprints, with the small helpers that read a reply as its probe asks (shapes, weights, numbers).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations
from grader.diagnosis.fingerprint import Compiled, StudentVector
from grader.probes import Memo, Probe, describe
from grader.probes.replies import Reply

Facts = dict[str, str]
# The fact that names the probe a message quotes, for the claims that check it (grader/diagnosis/claims.py);
# no message template uses it, so no probe id reaches a student.
PROBE = "_probe"

# A reply's weights count as a row softmax when rows sum to one this closely.
SUM_ATOL = 1e-6
# Scores (after the chapter's scale) beyond which exp overflows: float32 ~88.7, float64 ~709.8.
OVERFLOW = {torch.float32: 88.0, torch.float64: 709.0}


@dataclass
class Context(Memo):
    """Everything a reader may look at; computed values are memoised per submission."""

    obs: Observations
    outcomes: dict[str, CheckOutcome]
    fingerprints: dict[str, Compiled] = field(default_factory=dict)  # Catalogue.compiled()
    refused: dict[str, list[str]] = field(default_factory=dict)  # misconception id -> claims its evidence refuted

    def attention(self, *, families: tuple[str, ...] | None = None) -> Iterator[tuple[Probe, Reply]]:
        """Visible attention probes (not the shape-error ones) and their replies, selected once per
        family set (dozens of readers ask on every regrade)."""
        return iter(self.memo(("attention", families), self._attention, families))

    def _attention(self, families: tuple[str, ...] | None) -> list[tuple[Probe, Reply]]:
        return [(probe, self.obs.reply(probe.id)) for probe in self.obs.probes.probes
                if not probe.hidden and probe.target == "attention"
                # Not the shape errors, nor the head's projections (the single_head check's own comparison).
                and probe.family not in ("shape", "head_attention") and (families is None or probe.family in families)]


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
    the pair returned in the other order, or an extra leading dimension of size one. Read once per
    reply: most readers ask (readers only read what it returns)."""
    if not reply.ok or not {"out", "weights"} <= reply.tensors.keys():
        return None
    q, v = probe.t["q"], probe.t["v"]
    want_out, want_w = (*q.shape[:-1], v.shape[-1]), (*q.shape[:-1], q.shape[-2])
    return reply.memo(("pair", want_out, want_w), lambda: _pair(reply, want_out, want_w))


def _pair(reply: Reply, want_out: tuple[int, ...], want_w: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor] | None:
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
    """q k^T / sqrt(d_k) on the probe's inputs, computed once per probe (several readers ask; none writes to it)."""

    def compute() -> torch.Tensor:
        q, k = probe.t["q"].double(), probe.t["k"].double()
        return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

    return probe.memo("scaled_scores", compute)


# ---------------------------------------------------------------- fingerprints


def matches_fingerprint(ctx: Context, mid: str, threshold: float) -> bool:
    fingerprint = ctx.fingerprints.get(mid)
    if not fingerprint:
        return False
    vector = ctx.memo("vector", lambda: StudentVector.of_replies(
        {pid: r for pid, r in ctx.obs.replies.items() if not _hidden(ctx, pid)},
        keys={key for fp in ctx.fingerprints.values() for key, _ in fp}))
    return vector.reaches(fingerprint, threshold)


def _hidden(ctx: Context, pid: str) -> bool:
    probe = ctx.obs.probes.by_id.get(pid)
    return probe is not None and probe.hidden
