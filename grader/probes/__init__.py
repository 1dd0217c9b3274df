"""Inputs sent to a submission: the chapter's worked example, interventions, seeded random probes.

Visible probes are fixed and public (seed 0). Every family runs at several lengths (never only
the worked example's), relational checks get pairs of calls to compare the submission with itself
(shifted and unshifted scores, finite-difference steps), and the leak family changes future keys,
values and queries and other batch items. Hidden probes come from a seed derived from the
instructor's secret and the submission's content hash, so nobody can precompute them, yet the same
file and secret always meet the same inputs. Every named dimension gets its own size, so a
transposed axis cannot hide behind a square matrix.

This package is the one seam between what the grader asks and what comes back: a `Probe` says what it
is (hidden or not, its family, its length, how a student reads it, its expected values), and
`grader.probes.replies` reads the sandbox's frames into typed replies. Nothing outside this package
tests a probe's id as a string: ids are named here (`WORKED`, ...) and looked up through `ProbeSet`.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import torch

from grader.probes import expected
from grader.sandbox.wire import Frame, encode

_T = TypeVar("_T")

F64 = torch.float64
VISIBLE_SEED = 0
LN2, LN4 = math.log(2), math.log(4)


# What a probe is for: the checks and the diagnosis select probes by family, never by id.
Family = Literal["worked", "shift", "rand", "grad", "fd", "f32", "leak", "shape", "head", "head_fd",
                 "head_attention", "variant"]
# The entry point a probe calls (its frame's "target").
Target = Literal["attention", "head"]

# The probes readers name, declared once. The worked example and its two interventions:
WORKED, WORKED_ZERO_Q, WORKED_VALUE_BUMP = "we", "we.zero_q", "we.value_bump"
# Random probes of the first visible length: one flat sequence and one batch, small scores.
RANDOM_FLAT, RANDOM_BATCH = "rand.flat.small", "rand.batch.small"
_HIDDEN_ID = "h."  # hidden probes' ids start so, to stay apart from visible ones; `Probe.hidden` says it


@dataclass
class Memo:
    """Values several readers ask of one object, computed once: a probe's expected values (visible probes:
    once per process), a reply's comparisons with them, a submission's evidence."""

    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def memo(self, key: Hashable, compute: Callable[..., _T], *args: Any) -> _T:
        if key not in self._memo:
            self._memo[key] = compute(*args)
        return self._memo[key]


@dataclass
class Probe(Memo):
    id: str
    family: Family
    call: Frame
    info: dict = field(default_factory=dict)
    hidden: bool = False  # drawn from the secret: its id, sizes and family never reach a student

    @property
    def t(self) -> dict[str, torch.Tensor]:
        return self.call.tensors

    @property
    def target(self) -> Target:
        return self.call.meta["target"]

    @property
    def length(self) -> int:
        """T, the number of positions (of x for a head, of q for attention)."""
        return (self.t["x"] if "x" in self.t else self.t["q"]).shape[-2]

    @property
    def worked(self) -> bool:
        """The chapter's worked example itself (not one of its interventions)."""
        return self.id == WORKED

    @property
    def description(self) -> str:
        return describe(self)

    def expected(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(out, weights) of causal attention on this probe's q, k, v: SDPA in float64, computed once."""
        return self.memo("attention", expected.attention, self.t["q"], self.t["k"], self.t["v"])

    def expected_finite(self) -> tuple[bool, bool]:
        """Whether every value of `expected`'s out, and of its weights, is finite (each tested once)."""
        return self.memo("finite", lambda: tuple(bool(x.isfinite().all()) for x in self.expected()))

    def allowed(self, which: int, tol) -> torch.Tensor:
        """atol + rtol |expected| of `expected()[which]` (0: out, 1: weights) for a tolerance, computed once:
        the right-hand side of every comparison with it (`checks.observations.within`)."""
        return self.memo(("allowed", which, tol), lambda: tol.atol + tol.rtol * self.expected()[which].double().abs())

    def expected_at(self, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
        """The same at a formula's exact scale, computed once per scale: asked of every visible probe
        on every regrade (a float read from replies would grow the memo; pass those to `expected`)."""
        return self.memo(("attention", scale), expected.attention, self.t["q"], self.t["k"], self.t["v"], scale)

    def expected_head(self) -> dict[str, torch.Tensor]:
        """A head probe's expected out, weights and projection gradients, computed once."""
        return self.memo("head", expected.head, self.t)


_WORKED_WORDS = {WORKED: "the worked example", WORKED_ZERO_Q: "the worked example with every query zero",
                 WORKED_VALUE_BUMP: "the worked example with one value raised by {bump:g}"}


def describe(probe: Probe) -> str:
    """A probe as a student reads it, in words: "the worked example", "a batch of 6 sequences of 5
    positions". A hidden probe is never described by its id, its sizes or its family."""
    if probe.hidden:
        return "a probe the grade keeps unseen"
    if probe.id in _WORKED_WORDS:
        return _WORKED_WORDS[probe.id].format(bump=VALUE_BUMP)
    x = probe.t.get("x", probe.t.get("q"))
    if x is None or x.dim() < 2:
        return "a probe with one-dimensional inputs" if x is not None else "a probe"
    *batch, T = x.shape[:-1]
    seq = f"{T} position{'s' if T != 1 else ''}"
    layout = " laid out as a strided (non-contiguous) view of its heads" if probe.info.get("variant") == "heads.strided" \
        else ""
    if not batch:
        return f"one sequence of {seq}{layout}"
    return f"a batch of {' × '.join(map(str, batch))} sequences of {seq}{layout}"


@dataclass
class ProbeSet:
    probes: list[Probe]

    def __post_init__(self) -> None:
        self.by_id = {p.id: p for p in self.probes}
        # Each family's probes, in order, sorted once: a submission's readers ask for families ~25 times.
        families: dict[str, list[Probe]] = {}
        for p in self.probes:
            families.setdefault(p.family, []).append(p)
        self._families = {name: tuple(members) for name, members in families.items()}

    def family(self, name: Family) -> list[Probe]:
        return list(self._families.get(name, ()))

    def visible(self) -> list[Probe]:
        return [p for p in self.probes if not p.hidden]

    @property
    def worked(self) -> Probe:
        return self.by_id[WORKED]

    def base(self, probe: Probe) -> Probe | None:
        """The unchanged probe an intervention (leak, shift) is compared with."""
        return self.by_id.get(probe.info.get("base", ""))

    def own_attention(self, head: Probe) -> Probe | None:
        """The head probe's projections handed to the submission's own causal_attention."""
        return self.by_id.get(f"{head.id}.attention")

    def extreme_of(self, small: Probe) -> Probe | None:
        """The extreme-score probe of the same layout and draw as a small-score random probe."""
        if not small.id.endswith(".small"):
            return None
        return self.by_id.get(small.id.removesuffix(".small") + ".extreme")

    def calls(self) -> list[Frame]:
        return [p.call for p in self.probes]


def _attention(pid: str, family: str, q, k, v, grad_out=None, **info) -> Probe:
    """info["variant"], where given: what the probe is (layout, scores) at any length or draw."""
    tensors = {"q": q, "k": k, "v": v} | ({"grad_out": grad_out} if grad_out is not None else {})
    return Probe(pid, family, Frame("call", {"id": pid, "target": "attention"}, tensors), info)


def worked_example() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The chapter's hand example: every query [1, 0]; keys chosen so the last row scores [0, ln 2, ln 4]."""
    r2 = math.sqrt(2)
    q = torch.tensor([[1.0, 0.0]] * 3, dtype=F64)
    k = torch.tensor([[0.0, 0.0], [r2 * LN2, 0.0], [r2 * LN4, 0.0]], dtype=F64)
    v = torch.tensor([[2.0, 0.0], [0.0, 4.0], [6.0, 2.0]], dtype=F64)
    return q, k, v


# Closed-form numbers from the chapter, as fractions.
WORKED_WEIGHTS = torch.tensor([[1, 0, 0], [1 / 3, 2 / 3, 0], [1 / 7, 2 / 7, 4 / 7]], dtype=F64)
WORKED_OUT = torch.tensor([[2, 0], [2 / 3, 8 / 3], [26 / 7, 16 / 7]], dtype=F64)
ZERO_Q_WEIGHTS = torch.tensor([[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]], dtype=F64)
ZERO_Q_OUT = torch.tensor([[2, 0], [1, 2], [8 / 3, 2]], dtype=F64)
VALUE_BUMP = 7.0
SHIFT = 1000.0


def with_shift(q: torch.Tensor, k: torch.Tensor, shift: float = SHIFT) -> tuple[torch.Tensor, torch.Tensor]:
    """Append one feature to q and k so that every score moves by `shift` (after the 1/sqrt(d_k) scale).

    Any scale applied to every score, right or wrong, moves them all by one constant: a submission
    compared with itself on the unshifted scores must give the same result."""
    d = q.shape[-1] + 1
    c = math.sqrt(abs(shift) * math.sqrt(d))
    pad = torch.full((*q.shape[:-1], 1), c, dtype=q.dtype)
    return torch.cat([q, pad], -1), torch.cat([k, pad if shift >= 0 else -pad], -1)


def without_shift(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The same scores as `with_shift`, minus the shift: what the output must equal."""
    zero = torch.zeros((*q.shape[:-1], 1), dtype=q.dtype)
    return torch.cat([q, zero], -1), torch.cat([k, zero], -1)


# Every probe family runs at several lengths, none of them the worked example's 3: a mask written
# for one length fails visibly, and no grade depends on which sizes a secret happens to draw.
VISIBLE_LENGTHS = (5, 8)
HIDDEN_LENGTHS = (4, 7)
FD_STEP = 1e-3  # finite-difference step for the gradient check (central differences)


def _sizes(gen: torch.Generator, names: str, T: int | None = None) -> dict[str, int]:
    """Distinct sizes in 2..9 for `names`; T (when given) is fixed and no other size equals it."""
    pool = [int(s) + 2 for s in torch.randperm(8, generator=gen) if T is None or int(s) + 2 != T]
    sizes = dict(zip(names, pool, strict=False))
    return sizes | ({"T": T} if T is not None else {})


def _randn(gen: torch.Generator, *shape: int, scale: float = 1.0, dtype=F64) -> torch.Tensor:
    return (torch.randn(*shape, generator=gen, dtype=F64) * scale).to(dtype)


def _fd_probes(gen: torch.Generator, probe: Probe, names: tuple[str, ...], target: str) -> list[Probe]:
    """The same call with one input moved by +-h along a random direction: finite differences of the
    submission's own function, to hold its own autograd against (a gradcheck along one direction)."""
    probes = []
    for name in names:
        direction = _randn(gen, *probe.t[name].shape)
        direction /= direction.norm()
        for sign in (1, -1):
            tensors = dict(probe.t) | {name: probe.t[name] + sign * FD_STEP * direction}
            # Only the step's output is read (sum(out * grad_out) at each end): no backward pass in the child.
            meta = dict(probe.call.meta) | {"id": f"{probe.id}.fd.{name}.{'+' if sign > 0 else '-'}", "backward": False}
            info = {"of": probe.id, "input": name, "sign": sign, "direction": direction, "fingerprint": False}
            probes.append(Probe(meta["id"], "fd", Frame("call", meta, tensors), info))
    return probes


def _random_family(gen: torch.Generator, prefix: str, T: int, tag: str = "") -> list[Probe]:
    s = _sizes(gen, "BHkv", T)
    B, H, dk, dv = s["B"], s["H"], s["k"], s["v"]
    layouts = {"flat": (), "batch": (B,), "heads": (B, H)}
    probes = []
    # Small/negative scores and extreme ones (scores in the tens: sharp but finite weights).
    for scale_name, scale in (("small", 0.3), ("extreme", 4.0)):
        for name, lead in layouts.items():
            q, k = _randn(gen, *lead, T, dk, scale=scale), _randn(gen, *lead, T, dk, scale=scale)
            v = _randn(gen, *lead, T, dv)
            probes.append(_attention(f"{prefix}rand.{tag}{name}.{scale_name}", "rand", q, k, v,
                                     variant=f"{name}.{scale_name}"))
    # Scores spread over about +-1000 within a row: a softmax that subtracts anything but the row's
    # maximum overflows here. Compared at the precision such scores allow (band_for(..., scores)).
    q, k = _randn(gen, B, T, dk, scale=18.0), _randn(gen, B, T, dk, scale=18.0)
    probes.append(_attention(f"{prefix}rand.{tag}batch.sharp", "rand", q, k, _randn(gen, B, T, dv),
                             scores=SHIFT, variant="batch.sharp"))
    # The usual multi-head layout, x.view(B, T, H, d).transpose(1, 2): not contiguous in memory.
    q, k, v = (_randn(gen, B, H, T, d) for d in (dk, dk, dv))
    strided = _attention(f"{prefix}rand.{tag}heads.strided", "rand", q, k, v, variant="heads.strided")
    strided.call.meta["layout"] = "heads_transposed"
    probes.append(strided)
    for name in ("batch", "heads"):
        lead = layouts[name]
        q, k, v = (_randn(gen, *lead, T, d) for d in (dk, dk, dv))
        g = _randn(gen, *lead, T, dv)
        grad = _attention(f"{prefix}grad.{tag}{name}", "grad", q, k, v, grad_out=g)
        probes.append(grad)
        if name == "heads":
            probes += _fd_probes(gen, grad, ("q", "k", "v"), "attention")
    for name in ("batch", "heads"):
        lead = layouts[name]
        q, k, v = (_randn(gen, *lead, T, d, dtype=torch.float32) for d in (dk, dk, dv))
        probes.append(_attention(f"{prefix}f32.{tag}{name}", "f32", q, k, v, variant=name))
    # Scores near 1000 against the same scores without the shift, through the submission itself.
    q, k, v = _randn(gen, B, T, dk), _randn(gen, B, T, dk), _randn(gen, B, T, dv)
    probes += _shift_pair(f"{prefix}shift.{tag}rand", q, k, v)
    return probes


FILL_EDGE = -1e4  # a finite fill must stay below allowed scores this low: -1e9 and finfo.min do, -1e4 does not


def _shift_pair(pid: str, q, k, v, shifts=(SHIFT, -SHIFT)) -> list[Probe]:
    """Scores moved by each shift (near +-1000; the worked example also near -1e4, the edge for a
    finite fill, which must stay below every allowed score), each against the same scores unshifted."""
    bq, bk = without_shift(q, k)
    probes = [_attention(f"{pid}.base", "shift", bq, bk, v, kind="base")]
    names = {SHIFT: "", -SHIFT: ".neg", FILL_EDGE: ".fill_edge"}
    for shift in shifts:
        name = names[shift]
        sq, sk = with_shift(q, k, shift)
        probes.append(_attention(f"{pid}{name}", "shift", sq, sk, v, kind="shifted", base=f"{pid}.base",
                                 shift=shift))
    return probes


def _leak_family(gen: torch.Generator, prefix: str, T: int, tag: str = "") -> list[Probe]:
    """A base batch and interventions that touch only what a row must not see."""
    s = _sizes(gen, "Bkv", T)
    B, dk, dv = s["B"], s["k"], s["v"]
    q, k, v = (_randn(gen, B, T, d) for d in (dk, dk, dv))
    cut = T // 2 - 1  # rows 0..cut must not see positions after cut
    big = 5.0
    name = f"{prefix}leak.{tag}"
    probes = [_attention(f"{name}base", "leak", q, k, v, kind="base", base=f"{name}base")]

    def changed(kind: str, rows_fixed, items_fixed, *, keys=None, values=None, queries=None) -> Probe:
        return _attention(
            f"{name}{kind}", "leak", queries if queries is not None else q,
            keys if keys is not None else k, values if values is not None else v,
            kind=kind, rows_fixed=rows_fixed, items_fixed=items_fixed, base=f"{name}base",
        )

    k2, v2 = k.clone(), v.clone()
    k2[:, -1] += big * _randn(gen, B, dk)
    v2[:, -1] += big * _randn(gen, B, dv)
    probes.append(changed("final_kv", T - 1, B, keys=k2, values=v2))
    k3, v3 = k.clone(), v.clone()
    k3[:, cut + 1:] += big * _randn(gen, B, T - cut - 1, dk)
    v3[:, cut + 1:] += big * _randn(gen, B, T - cut - 1, dv)
    probes.append(changed("future_kv", cut + 1, B, keys=k3, values=v3))
    # The same change with every score near -1e4: a finite fill that is not far below (-1e4 itself,
    # a multiplicative mask) lets future positions in once the allowed scores are that low.
    lq, lk = with_shift(q, k, FILL_EDGE)
    _, lk3 = with_shift(q, k3, FILL_EDGE)
    probes.append(_attention(f"{name}low.base", "leak", lq, lk, v, kind="base", base=f"{name}low.base"))
    probes.append(_attention(f"{name}low.future_kv", "leak", lq, lk3, v3, kind="future_kv_low",
                             rows_fixed=cut + 1, items_fixed=B, base=f"{name}low.base"))
    k4 = k.clone()
    k4[:, cut + 1:] += big * _randn(gen, B, T - cut - 1, dk)
    probes.append(changed("future_keys", cut + 1, B, keys=k4))
    # Future queries: a softmax over receivers (the wrong axis) lets later rows reshape earlier ones.
    q6 = q.clone()
    q6[:, cut + 1:] += big * _randn(gen, B, T - cut - 1, dk)
    probes.append(changed("future_queries", cut + 1, B, queries=q6))
    q5, k5, v5 = q.clone(), k.clone(), v.clone()
    for t in (q5, k5, v5):
        t[1:] += big * _randn(gen, *t[1:].shape)
    probes.append(changed("other_items", T, 1, queries=q5, keys=k5, values=v5))
    return probes


def _shape_errors(prefix: str) -> list[Probe]:
    """Inputs the contract rejects: each mismatch alone, including v's, and too few dimensions."""
    z = lambda *shape: torch.zeros(*shape, dtype=F64)  # noqa: E731
    return [
        _attention(f"{prefix}shape.{name}", "shape", *inputs, mismatch=name) for name, inputs in (
            ("batch", (z(1, 5, 4), z(3, 5, 4), z(3, 5, 6))),
            ("length", (z(2, 5, 4), z(2, 4, 4), z(2, 4, 6))),
            ("width", (z(2, 5, 4), z(2, 5, 3), z(2, 5, 6))),
            ("value_length", (z(2, 5, 4), z(2, 5, 4), z(2, 1, 6))),
            ("value_batch", (z(2, 5, 4), z(2, 5, 4), z(1, 5, 6))),
            ("one_dim", (z(4), z(4), z(4))),
        )
    ]


def _head(gen: torch.Generator, pid: str, n_embd: int, d_k: int, d_v: int | None, x_shape) -> list[Probe]:
    dv = d_v or d_k
    tensors = {
        "x": _randn(gen, *x_shape, n_embd),
        "w_query": _randn(gen, d_k, n_embd, scale=0.5),
        "w_key": _randn(gen, d_k, n_embd, scale=0.5),
        "w_value": _randn(gen, dv, n_embd, scale=0.5),
        "grad_out": _randn(gen, *x_shape, dv),
    }
    meta = {"id": pid, "target": "head", "n_embd": n_embd, "d_k": d_k, "d_v": d_v}
    probe = Probe(pid, "head", Frame("call", meta, tensors), {"n_params": (2 * d_k + dv) * n_embd})
    fd = _fd_probes(gen, probe, ("w_query", "w_key", "w_value"), "head")
    for p in fd:
        p.family = "head_fd"
    # The submission's own causal_attention on the head's projections: a head that composes it right
    # is right, whatever that function gets wrong (its mistakes are the attention checks' findings).
    x = tensors["x"]
    q, k, v = (x @ tensors[f"w_{n}"].T for n in ("query", "key", "value"))
    own = _attention(f"{pid}.attention", "head_attention", q, k, v, of=pid, fingerprint=False)
    return [probe, *fd, own]


@functools.cache
def _visible() -> tuple[Probe, ...]:
    probes = tuple(_build_visible())
    for p in probes:  # the same calls for every submission: encoded once per process, not once per submission
        p.call.encoded = encode(p.call)
    return probes


def visible_probes() -> list[Probe]:
    """Fixed and public; built once per process and never modified."""
    return list(_visible())


def _build_visible() -> list[Probe]:
    gen = torch.Generator().manual_seed(VISIBLE_SEED)
    q, k, v = worked_example()
    bumped = v.clone()
    bumped[0, 0] += VALUE_BUMP
    probes = [
        _attention(WORKED, "worked", q, k, v),
        _attention(WORKED_ZERO_Q, "worked", torch.zeros_like(q), k, v),
        _attention(WORKED_VALUE_BUMP, "worked", q, k, bumped),
        *_shift_pair("shift.we", q, k, v, (SHIFT, -SHIFT, FILL_EDGE)),
    ]
    for i, T in enumerate(VISIBLE_LENGTHS):
        tag = "" if i == 0 else f"T{T}."  # the first set keeps the ids the diagnosis reads
        family = _random_family(gen, "", T, tag) + _leak_family(gen, "", T, tag)
        for p in family:
            if i > 0:  # fingerprints read the first length only: more lengths add size, not evidence
                p.info["fingerprint"] = False
        probes += family
    # Not probed: a mask built on the CPU whatever the inputs' device. The `meta` device would show it
    # without a GPU, but its kernels register on first use (seconds per sandboxed child) and read the
    # attention ops the tripwires replace; docs/grading-policy.md says it is not checked.
    return [
        *probes, *_shape_errors(""),
        # The chapter's configuration, then one where every size differs.
        *_head(gen, "head", 6, 2, None, (2, 4)),
        *_head(gen, "head.distinct", 5, 3, 4, (3, 6)),
        _long(gen, ""),  # drawn last: every probe above keeps its numbers (and the catalogue its fingerprints)
    ]


# Longer than the block sizes code copies from tutorials (8, 16, 32): a mask built once at a fixed size
# and sliced, tril[:T, :T], is right up to that size and fails here. One flat probe: T^2 stays small.
LONG = 40


def _long(gen: torch.Generator, prefix: str) -> Probe:
    s = _sizes(gen, "kv")
    q, k = _randn(gen, LONG, s["k"], scale=0.3), _randn(gen, LONG, s["k"], scale=0.3)
    probe = _attention(f"{prefix}rand.long", "rand", q, k, _randn(gen, LONG, s["v"]), variant="flat.long")
    probe.info["fingerprint"] = False
    return probe


def hidden_seed(secret: str, source: bytes) -> int:
    digest = hashlib.sha256(secret.encode() + b"\0" + hashlib.sha256(source).digest()).digest()
    return int.from_bytes(digest[:8], "big")


def hidden_probes(seed: int) -> list[Probe]:
    gen = torch.Generator().manual_seed(seed)
    probes = []
    for T in HIDDEN_LENGTHS:
        probes += _random_family(gen, _HIDDEN_ID, T, f"T{T}.") + _leak_family(gen, _HIDDEN_ID, T, f"T{T}.")
    sizes = _sizes(gen, "nkv", 5)  # T = 5, distinct from every width
    n, k, v = sizes["n"], sizes["k"], sizes["v"]
    probes = [*probes, *_head(gen, f"{_HIDDEN_ID}head", n, k, v, (2, 5)), _long(gen, _HIDDEN_ID)]
    for probe in probes:
        probe.hidden = True
    return probes


# Drawn in a self-check (no secret) from a hash of the file itself: changing a table of answers changes
# them, so no table can hold them. Hidden like the secret's (`Probe.hidden`), and of a family no check
# scores: they only show whether results that hold on the public probes hold elsewhere too.
SELF_CHECK_FAMILY = "variant"


def self_check_variants(source: bytes) -> list[Probe]:
    gen = torch.Generator().manual_seed(hidden_seed("self-check", source))
    probes = [p for p in _random_family(gen, f"{_HIDDEN_ID}self.", HIDDEN_LENGTHS[0]) if p.family == "rand"]
    for p in probes:
        p.family = SELF_CHECK_FAMILY
        p.hidden = True
    return probes


def build_probes(seed: int | None = None) -> ProbeSet:
    """Visible probes, plus hidden ones when the grader holds a seed."""
    probes = visible_probes()
    if seed is not None:
        probes += hidden_probes(seed)
    return ProbeSet(probes)
