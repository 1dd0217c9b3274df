"""What a submission returned for each probe, as the checks see it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import torch

from grader.checks.base import CheckOutcome, Tolerance
from grader.probes import SELF_CHECK_FAMILY, Probe, ProbeSet, describe
from grader.probes.replies import Reply, read_run
from grader.probes.replies import missing as missing_reply
from grader.sandbox import RunResult
from grader.vocabulary import NOT_IMPLEMENTED, NOT_RAISED, PROCESS_FAILURES

TolFn = Callable[[str], Tolerance]
Shown = str | Callable[[], str] | None
# Every check can find this: a call on inputs the contract allows raised (or hung). A rubric may name it
# in `ceiling_when` where a crash is the kind of bug its band is for.
CRASH = "crash"
# The entry point a probe calls (its frame's "target"), as a student's file names it.
ENTRY_OF_TARGET = {"attention": "causal_attention", "head": "SingleHead"}


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
    scored: tuple[str, ...] = ()  # the rubric's checks: one finding is charged where the rubric scores it
    _memo: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_run(cls, run: RunResult, probes: ProbeSet, source: str, *, required: tuple[str, ...],
                 forbidden: tuple[str, ...], scored: tuple[str, ...] = ()) -> Observations:
        """A sandbox run's replies, as `grader.probes.replies` reads them (the one place frames are read)."""
        answers = read_run(run, source)
        obs = cls(probes, answers.replies, source=source, required=required, forbidden=forbidden, scored=scored,
                  load_error=answers.load_error)
        if answers.load_error is None:
            obs.load_names, obs.defined = answers.load_names, answers.defined
        return obs

    def reply(self, pid: str) -> Reply:
        return self.replies.get(pid) or missing_reply()

    def family(self, name: str) -> list[tuple[Probe, Reply]]:
        return [(p, self.reply(p.id)) for p in self.probes.family(name)]

    def attention_missing(self) -> str | None:
        """None when the weights respond to queries and keys; otherwise what was seen instead.

        Evidence: two random probes of one layout and length (small scores, extreme scores) whose
        weights differ. Identity weights, or answers written out for the worked example, show none.
        """
        if "attention_missing" not in self._memo:
            self._memo["attention_missing"] = self.answers_only_public() or _attention_missing(self)
        return self._memo["attention_missing"]

    def answers_only_public(self) -> str | None:
        """What shows that results are written out for the public probes rather than computed: on some
        kind of random probe they match attention on every public probe and are far off on every probe
        the secret drew of that kind (in a self-check, of the variants drawn from the file itself)."""
        if "answers_only_public" not in self._memo:
            self._memo["answers_only_public"] = _answers_only_public(self)
        return self._memo["answers_only_public"]

    def not_written(self) -> tuple[str, ...]:
        """Entry points that raised NotImplementedError on every call the probes made: stubs not written
        yet. One that raised it on some inputs only is written, and that error is a finding."""
        if "not_written" not in self._memo:
            calls: dict[str, list[Reply]] = {}
            for p in self.probes.probes:
                if (entry := ENTRY_OF_TARGET.get(p.target)) is not None:
                    calls.setdefault(entry, []).append(self.reply(p.id))
            self._memo["not_written"] = tuple(
                e for e, replies in calls.items() if all(raised(r, NOT_IMPLEMENTED) for r in replies))
        return self._memo["not_written"]

    def attention_not_written(self) -> tuple[str, ...]:
        """("causal_attention",) when it is a stub: what needs attention's evidence waits for it."""
        return tuple(e for e in self.not_written() if e == "causal_attention")


# Right on a public probe: as close as float32 arithmetic gets. Far off on a secret one: no rounding does that.
_RIGHT, _FAR = 1e-4, 1e-2


def _off_by(probe: Probe, reply: Reply) -> float | None:
    """The largest difference of out and weights from attention on the probe's inputs (inf: no result;
    None: the sandbox stopped the call, so it says nothing about the answer, e.g. a slow file's budget)."""
    if not reply.ok:
        return None if reply.error_type in PROCESS_FAILURES else float("inf")
    wanted = probe.expected()
    worst = 0.0
    for name, want in zip(("out", "weights"), wanted, strict=True):
        got = reply.tensors.get(name)
        if got is None or got.shape != want.shape or not got.isfinite().all():
            return float("inf")
        worst = max(worst, max_error(got, want) / (1.0 + float(want.abs().max())))
    return worst


def _answers_only_public(obs: Observations) -> str | None:
    kinds: dict[str, tuple[list[float], list[float]]] = {}
    variants = obs.family(SELF_CHECK_FAMILY)  # a self-check's stand-ins for the secret's probes
    for probe, reply in [*obs.family("rand"), *variants]:
        public, secret = kinds.setdefault(probe.info["variant"], ([], []))
        # A hidden probe's id never reaches a message: only the layout (its variant) is quoted.
        if (off := _off_by(probe, reply)) is not None:
            (secret if probe.hidden else public).append(off)
    for kind, (public, secret) in kinds.items():
        if public and secret and max(public) <= _RIGHT and min(secret) > _FAR:
            return (f"on the public random probes of layout {kind} your results match attention, and on every "
                    f"probe of that layout the grader draws {'from your file itself' if variants else 'from its secret'} "
                    "they are far off (or missing): results "
                    "that hold only on the public inputs are not computed, so no check credits them.")
    return None


def _attention_missing(obs: Observations) -> str | None:
    seen, unfinite = [], []
    for probe in obs.probes.family("rand"):
        other = obs.probes.extreme_of(probe)
        if other is None:
            continue
        a, b = obs.reply(probe.id), obs.reply(other.id)
        if not (a.ok and b.ok):
            continue
        wa, wb = a.tensors.get("weights"), b.tensors.get("weights")
        if wa is None or wb is None or wa.shape != wb.shape or wa.numel() == 0:
            continue
        # Only finite weights are evidence: NaN or inf differ from everything, and respond to nothing.
        both = wa.isfinite() & wb.isfinite()
        if both.any() and max_error(wa[both], wb[both]) > 1e-6:
            return None
        if not both.any():
            unfinite.append((probe, other, wa))
            continue
        seen.append((probe, other, wa))
    if not seen and unfinite:
        probe, other, w = unfinite[0]
        return (f"on probes {probe.id} and {other.id} ({shapes(probe)}) no weight is a finite number ({fmt(w)}): "
                "NaN or inf weights show no response to the queries and keys.")
    if not seen:
        failed = next(((p, r) for p, r in obs.family("rand") if not r.ok), None)
        if failed is not None:
            probe, reply = failed
            return (f"the random probes that would show it raised: causal_attention on {shapes(probe)} raised "
                    f"{reply.raised}{_value_width_note(obs)}")
        return "no pair of random probes returned weights of one shape to compare."
    probe, other, w = seen[0]
    return (f"on {describe(probe)} and {describe(other)}, whose queries and keys differ ({shapes(probe)}), your weights "
            f"are identical ({fmt(w)}): they do not depend on the queries and keys.")


def value_width_split(obs: Observations) -> tuple[list[Probe], list[tuple[Probe, Reply]]] | None:
    """(the calls that ran, the calls that raised) when causal_attention raised on exactly the public calls
    whose value width d_v differs from d_k, and ran on every one where they are equal."""
    ran, raised_ = [], []
    for probe in obs.probes.probes:
        if probe.hidden or probe.target != "attention" or probe.family == "shape":
            continue
        reply = obs.reply(probe.id)
        differ = probe.t["v"].shape[-1] != probe.t["q"].shape[-1]
        if reply.ok and not differ:
            ran.append(probe)
        elif not reply.ok and differ and reply.error_type not in NOT_RAISED:
            raised_.append((probe, reply))
        else:
            return None  # a call that ran with d_v != d_k, or raised with d_v == d_k: not this pattern
    return (ran, raised_) if ran and raised_ else None


def _value_width_note(obs: Observations) -> str:
    split = value_width_split(obs)
    if split is None:
        return ""
    worked = ", the worked example among them" if any(p.worked for p in split[0]) else ""
    return (f" (it raised on every input whose d_v differs from d_k, and ran on all {len(split[0])} where they "
            f"are equal{worked})")


def dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


# The precision policy. A result right at the precision it honestly computes in (float32 arithmetic
# inside, on float64 inputs: right to about 1e-7) is one precision finding, reported by the
# `precision` check with its measured error, not a failure of every value check. Value checks accept
# a float64 probe's result within PRECISION_BAND; the `precision` check alone holds it to the rubric's
# float64 tolerance and to the input's dtype. Scores near +-S (the shift and sharp probes) are only
# resolved to S x float32's epsilon, hence the band widens with S. float32 inputs get no band: float32 is their dtype.
PRECISION_BAND = Tolerance(atol=1e-5, rtol=1e-5)
SCORE_RESOLUTION = 5e-7  # per unit of score magnitude: a few float32 epsilons


def band_for(dtype: str, scores: float | None = None) -> Tolerance | None:
    """The precision band for a probe's input dtype; `scores`: how large its scores get (+-1000 ...)."""
    if dtype != "float64":
        return None
    if scores:
        wide = max(PRECISION_BAND.atol, abs(scores) * SCORE_RESOLUTION)
        return Tolerance(atol=wide, rtol=wide)
    return PRECISION_BAND


def _allclose(a: torch.Tensor, e: torch.Tensor, tol: Tolerance) -> bool:
    return bool(torch.allclose(a, e, atol=tol.atol, rtol=tol.rtol))


Allowed = Callable[[Tolerance], torch.Tensor]  # atol + rtol |expected| for a tolerance, as a caller keeps it


def within(a: torch.Tensor, e: torch.Tensor, tol: Tolerance, allowed: Allowed | None = None) -> bool:
    """`torch.allclose(a, e, atol, rtol)` where every value of `e` is finite, in fewer operations: there
    `torch.isclose` is |a - e| <= atol + |rtol e| element by element (a NaN, an inf or an overflowing
    difference is never within it, equal values always are), computed the same way in a's dtype.
    `allowed`: the right-hand side for a tolerance, kept by the caller (a probe's expected values)."""
    bound = allowed(tol) if allowed is not None else tol.atol + tol.rtol * e.abs()
    return bool(((a - e).abs() <= bound).all())


def close(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance, band: Tolerance | None = None, *,
          finite_expected: bool = False, allowed: Allowed | None = None) -> bool:
    """Same shape, finite, and within tolerance, or within the precision band when one is given
    (compared in float64, whatever dtype came back: a float16 result is judged, never a crash).
    `finite_expected`: the caller knows every expected value is finite; then no separate test of the
    actual's is needed, since NaN or inf is never within tolerance of a finite number (`torch.isclose`),
    and the comparison is `within` (with `allowed`, if given)."""
    if actual.shape != expected.shape:
        return False
    a, e = actual.detach().double(), expected.detach().double()
    if not finite_expected:
        if not bool(torch.isfinite(a).all()):
            return False
        if _covers(band, tol):  # one comparison
            return _allclose(a, e, band)
        return _allclose(a, e, tol) or (band is not None and _allclose(a, e, band))
    if _covers(band, tol):
        return within(a, e, band, allowed)
    return within(a, e, tol, allowed) or (band is not None and within(a, e, band, allowed))


def _covers(band: Tolerance | None, tol: Tolerance) -> bool:
    """Whether within tol is always within the band too (atol + rtol |e| only grows, rounding included)."""
    return band is not None and band.atol >= tol.atol and band.rtol >= tol.rtol


def matches_expected(reply: Reply, probe: Probe, name: str, tol: Tolerance, band: Tolerance | None = None) -> bool:
    """`close` for the reply's `name` ("out" or "weights", of the probe's shape) against the probe's
    expected value, memoised on the reply: the value checks and the precision check compare the same pair."""
    which = ("out", "weights").index(name)
    got, want = reply[name], probe.expected()[which]
    key = ("expected", name, band if _covers(band, tol) else (tol, band))
    return reply.memo(key, lambda: close(got, want, tol, band, finite_expected=probe.expected_finite()[which],
                                         allowed=lambda t: probe.allowed(which, t)))


def max_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """Largest absolute difference (inf where either side is not finite, or shapes differ)."""
    if actual.shape != expected.shape:
        return float("inf")
    diff = (actual.detach().double() - expected.detach().double()).abs()
    return float(diff.nan_to_num(nan=float("inf")).max()) if diff.numel() else 0.0


def raised(reply: Reply, name: str) -> bool:
    """Whether the call raised `name` or a subclass of it (isinstance, from the class names sent)."""
    return not reply.ok and (reply.error_type == name or name in reply.mro)


def shapes(probe: Probe) -> str:
    """The input shapes of an attention probe, as a message quotes them (a hidden probe's: none)."""
    if probe.hidden:
        return "sizes not shown"
    return ", ".join(f"{n} {tuple(probe.t[n].shape)}" for n in "qkv" if n in probe.t)


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


class FailedCase(NamedTuple):
    """One failing case: what the outcome quotes if it comes first (errors before failures)."""

    could_not_run: bool
    message: Shown
    expected: Shown = None
    observed: Shown = None
    finding: str | None = None  # which of the check's declared findings it is
    stub: str | None = None  # could not run only because this entry point raised NotImplementedError


def _shown(value: Shown) -> str | None:
    return value() if callable(value) else value


@dataclass
class Cases:
    """Sub-cases of one check; the outcome reports the first problem in the chapter's words."""

    passed: int = 0
    problems: list[FailedCase] = field(default_factory=list)  # in the order found
    # With kinds (see `kind`): (kind, aspect, passed) per case; aspect None for a call that could not run.
    seen: list[tuple[str, str | None, bool]] | None = None
    _kind: str | None = None

    def kind(self, name: str) -> None:
        """The cases that follow belong to one kind of probe: its layout and scores, whatever its
        length, visible or hidden. A case then passes only when its aspect (out, weights, row sums
        ...) passes on every probe of its kind that ran: a wrong function that lands within
        tolerance on some draws by chance (softmax saturates) would otherwise score by its
        secret's luck."""
        self.seen = [] if self.seen is None else self.seen
        self._kind = name

    def _record(self, good: bool, aspect: str | None) -> None:
        if self._kind is None:
            self.passed += good
        else:
            self.seen.append((self._kind, aspect, good))

    def ok(self, aspect: str | None = None) -> None:
        self._record(True, aspect or "")

    def fail(self, message: Shown, expected: Shown = None, observed: Shown = None,
             aspect: str | None = None) -> None:
        self.problems.append(FailedCase(False, message, expected, observed, aspect))
        self._record(False, aspect or "")

    def error(self, reply: Reply, what: str, probe: Probe | None = None) -> None:
        """A case that could not run: which call, on which input shapes, what it raised."""
        where = f" on {shapes(probe)}" if probe is not None and "q" in probe.t else ""
        stub = raised(reply, NOT_IMPLEMENTED)  # not written yet: no finding, only a to-do
        entry = ENTRY_OF_TARGET.get(probe.target) if probe is not None and stub else None
        self.problems.append(FailedCase(True, f"{what}{where} raised {reply.raised}",
                                        finding=None if stub else CRASH, stub=entry))
        self._record(False, None)

    def check(self, good: bool, message: Shown, expected: Shown = None, observed: Shown = None,
              aspect: str | None = None) -> bool:
        """message, expected and observed may be callables: numbers are formatted only for the case the
        outcome quotes."""
        if good:
            self.ok(aspect)
        else:
            self.fail(message, expected, observed, aspect)
        return good

    def _by_kind(self) -> tuple[int, int]:
        """(passed, total) over every case: one passes only when its kind passes that aspect on every
        probe that ran. Calls that could not run stay failing cases of their own (a crash depends
        on the shape, never on the draw)."""
        clean: dict[tuple[str, str], bool] = {}
        for kind, aspect, good in self.seen:
            if aspect is not None:
                clean[kind, aspect] = clean.get((kind, aspect), True) and good
        return sum(aspect is not None and clean[kind, aspect] for kind, aspect, _ in self.seen), len(self.seen)

    def outcome(self, passed_feedback: str = "") -> CheckOutcome:
        """The verdict; a passing outcome's text comes from the check's declaration unless given."""
        if self.seen is not None:
            self.passed, total = self._by_kind()
        else:
            total = self.passed + len(self.problems)
        if not self.problems:
            return CheckOutcome("passed", self.passed, total, passed_feedback)
        errored = [p for p in self.problems if p.could_not_run]
        quoted = (errored or self.problems)[0]
        status = "error" if errored else "failed"
        # Nothing ran but calls that raised NotImplementedError (CheckSpec.run keeps this only for a
        # function that raised it on every call, a stub not written yet).
        only_stubs = not self.passed and all(p.stub for p in self.problems)
        message = _shown(quoted.message)
        if errored:  # "this check" only when no case ran: partial points would contradict it
            ran = self.passed or len(errored) < len(self.problems)
            message = (f"Could not run {len(errored)} of this check's {total} cases; the first, {message}" if ran
                       else f"Could not run this check: {message}")
        return CheckOutcome(status, self.passed, total, message, _shown(quoted.expected),
                            _shown(quoted.observed), quoted.finding or None,
                            tuple(dict.fromkeys(p.finding for p in self.problems if p.finding)),
                            not_written=tuple(dict.fromkeys(p.stub for p in self.problems)) if only_stubs else ())
