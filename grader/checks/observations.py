"""What a submission returned for each probe, as the checks see it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from grader.checks.base import CheckOutcome, Tolerance
from grader.probes import Probe, ProbeSet
from grader.sandbox import protocol

TolFn = Callable[[str], Tolerance]
Shown = str | Callable[[], str] | None


@dataclass
class Reply:
    ok: bool
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    error_type: str | None = None
    error: str | None = None

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.tensors[name]

    @classmethod
    def from_frame(cls, frame) -> Reply:
        """A reply frame as checks see it, re-typed by a model: a child can write anything."""
        meta = protocol.parse(protocol.ReplyMeta, frame.meta)
        if meta is None:
            return cls(False, error_type="protocol_error", error="the reply's fields have the wrong types")
        clean = meta.model_dump(exclude_none=True)
        if meta.ok and not {"out", "weights"} <= frame.tensors.keys():
            return cls(False, error_type="protocol_error", error="a reply claimed success without out and weights")
        if meta.ok:
            return cls(True, frame.tensors, clean)
        return cls(False, {}, clean, (meta.error_type or "unknown")[:80], meta.error_message[:600])


@dataclass
class Observations:
    """Replies by probe id, plus what is known about the submission as a whole."""

    probes: ProbeSet
    replies: dict[str, Reply]
    source: str = ""
    load_error: Reply | None = None
    required: tuple[str, ...] = ("causal_attention", "SingleHead")
    load_names: tuple[str, ...] = ("causal_attention", "SingleHead")
    defined: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ("scaled_dot_product_attention", "MultiheadAttention")

    def reply(self, pid: str) -> Reply:
        return self.replies.get(pid) or Reply(False, error_type="missing", error="no reply was received")

    def family(self, name: str) -> list[tuple[Probe, Reply]]:
        return [(p, self.reply(p.id)) for p in self.probes.family(name)]


def dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def close(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> bool:
    """Same shape, finite, and within tolerance (compared in float64)."""
    if actual.shape != expected.shape:
        return False
    a, e = actual.double(), expected.double()
    return bool(torch.isfinite(a).all()) and bool(torch.allclose(a, e, atol=tol.atol, rtol=tol.rtol))


def fmt(t: torch.Tensor | None, rows: int = 3) -> str:
    """Numbers the way the chapter prints them: six decimals, one receiving row at a time."""
    if t is None:
        return "nothing"
    t = t.detach().double()
    if t.dim() == 0:
        return f"{t.item():.6f}"
    if t.dim() == 1:
        return "[" + ", ".join(f"{x:.6f}" for x in t.tolist()) + "]"
    while t.dim() > 2:
        t = t[0]
    shown = [fmt(r) for r in t[:rows]]
    more = f" ... ({t.shape[0] - rows} more rows)" if t.shape[0] > rows else ""
    return "[" + ", ".join(shown) + more + "]"


def first_bad_row(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> int | None:
    """Index of the first receiving position (last-but-one axis) whose row differs."""
    if actual.shape != expected.shape:
        return None
    a = actual.double().reshape(-1, *actual.shape[-2:])
    e = expected.double().reshape(-1, *expected.shape[-2:])
    bad = ~torch.isclose(a, e, atol=tol.atol, rtol=tol.rtol) | ~torch.isfinite(a)
    rows = bad.any(-1).any(0).nonzero()
    return int(rows[0]) if len(rows) else None


@dataclass
class Cases:
    """Sub-cases of one check; the outcome reports the first problem in the chapter's words."""

    passed: int = 0
    problems: list[tuple[bool, str, str | None, str | None]] = field(default_factory=list)

    def ok(self) -> None:
        self.passed += 1

    def fail(self, message: str, expected: str | None = None, observed: str | None = None) -> None:
        self.problems.append((False, message, expected, observed))

    def error(self, reply: Reply, what: str) -> None:
        self.problems.append((True, f"{what} raised {reply.error_type}: {reply.error}", None, None))

    def check(self, good: bool, message: str, expected: Shown = None, observed: Shown = None) -> bool:
        """expected/observed may be callables: numbers are formatted only for a failing case."""
        if good:
            self.ok()
        else:
            self.fail(message, expected() if callable(expected) else expected,
                      observed() if callable(observed) else observed)
        return good

    def outcome(self, passed_feedback: str = "") -> CheckOutcome:
        """The verdict; a passing outcome's text comes from the check's declaration unless given."""
        total = self.passed + len(self.problems)
        if not self.problems:
            return CheckOutcome("passed", self.passed, total, passed_feedback)
        errored = [p for p in self.problems if p[0]]
        is_error, message, expected, observed = (errored or self.problems)[0]
        status = "error" if errored else "failed"
        return CheckOutcome(status, self.passed, total, message, expected, observed)
