"""What a diagnosis's message asserts, checked against the submission's own replies before it is printed.

A reader (evidence/) finds a misconception and fills its message's facts. Each claim declared with
the misconception (misconceptions.py, `claims=`) re-reads, on its own, the evidence those facts quote
and says whether it holds; the engine prints no message one of its claims refuses. Claims in `EVERY`
hold for every message. A claim never finds anything: it can only refuse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import torch

from grader.diagnosis import evidence as ev
from grader.diagnosis.evidence import PROBE, Context, Facts


@dataclass(frozen=True)
class Premise:
    asserts: str  # what the message says, in words: the record of a refusal reads it
    holds: Callable[[Context, Facts], bool]


def refused(claims: tuple[Premise, ...], ctx: Context, facts: Facts) -> list[str]:
    """What a message would assert that its evidence contradicts (empty: it may be printed)."""
    return [c.asserts for c in (*EVERY, *claims) if not c.holds(ctx, facts)]


def _quoted(ctx: Context, facts: Facts):
    """(probe, reply) of the probe the facts quote, or None when they name none."""
    probe = ctx.obs.probes.by_id.get(facts.get(PROBE, ""))
    return None if probe is None else (probe, ctx.obs.reply(probe.id))


# ---------------------------------------------------------------- every message


_LINE = re.compile(r"at line (\d+) \(`([^`]*)`\)")


def lines_are_the_files(ctx: Context, facts: Facts) -> bool:
    """A line quoted as the file's is that line of the file."""
    return all(ev.source_line(ctx.obs, int(n)) == code for value in facts.values() for n, code in _LINE.findall(value))


def no_hidden_probe(ctx: Context, facts: Facts) -> bool:
    """A message quotes visible probes only."""
    quoted = _quoted(ctx, facts)
    return quoted is None or not quoted[0].hidden


EVERY = (Premise("every line it quotes is that line of the file", lines_are_the_files),
         Premise("it quotes only probes a student may see", no_hidden_probe))


# ---------------------------------------------------------------- the scale


def scale_is_measured_and_wrong(ctx: Context, facts: Facts) -> bool:
    """The scale quoted is the one the weights imply at that probe, and it is not 1/sqrt(d_k) there."""
    quoted = _quoted(ctx, facts)
    if quoted is None:
        return False
    probe, reply = quoted
    w = ev.weights(reply, probe)
    measured = ev.probe_implied_scale(probe, w) if w is not None else None
    measured = measured if measured is not None else ev.fit_scale(probe, reply)
    try:
        said = float(facts["scale"])
    except (KeyError, ValueError):
        return False
    right = 1 / math.sqrt(ev.sizes(probe)["d_k"])
    return measured is not None and math.isclose(measured, said, rel_tol=1e-5) and \
        not math.isclose(measured, right, rel_tol=1e-4)


SCALE = (Premise("the scale it quotes is the file's, and differs from 1/sqrt(d_k)", scale_is_measured_and_wrong),)


# ---------------------------------------------------------------- the mask


def _first_weights(ctx: Context, facts: Facts) -> torch.Tensor | None:
    quoted = _quoted(ctx, facts)
    w = None if quoted is None else ev.weights(quoted[1], quoted[0])
    return None if w is None else ev.first_slice(w)


def row_quoted_is_the_files(ctx: Context, facts: Facts) -> bool:
    w = _first_weights(ctx, facts)
    return w is not None and facts.get("row0") == ev.fmt(w[0])


def future_gets_a_share(ctx: Context, facts: Facts) -> bool:
    w = _first_weights(ctx, facts)
    return w is not None and bool((w.nan_to_num(0.0) != 0).triu(1).any())


def rows_fall_short(ctx: Context, facts: Facts) -> bool:
    w = _first_weights(ctx, facts)
    return w is not None and facts.get("sums") == ev.fmt(w.sum(-1)) and bool((w.sum(-1) < 1 - ev.SUM_ATOL).any())


MASK_LEAK = (Premise("the weight row it quotes is the file's", row_quoted_is_the_files),
             Premise("a source after its receiver gets a share", future_gets_a_share))
ROWS_SHORT = (Premise("the row sums it quotes are the file's, and some fall short of one", rows_fall_short),)


# ---------------------------------------------------------------- calls that raised or returned NaN


def quoted_call_raised(ctx: Context, facts: Facts) -> bool:
    quoted = _quoted(ctx, facts)
    return quoted is not None and not quoted[1].ok and quoted[1].raised.strip()[:300] == facts.get("raised")


def quoted_call_was_not_refused(ctx: Context, facts: Facts) -> bool:
    quoted = _quoted(ctx, facts)
    if quoted is None:
        return False
    reply = quoted[1]
    return reply.ok or (reply.error_type != "ValueError" and "ValueError" not in reply.mro)


def quoted_output_not_finite(ctx: Context, facts: Facts) -> bool:
    quoted = _quoted(ctx, facts)
    out = None if quoted is None else ev.output(quoted[1], quoted[0])
    return out is not None and not bool(torch.isfinite(out).all())


def every_other_width_raised(ctx: Context, facts: Facts) -> bool:
    """"Raised on every input where d_v differs from d_k": no such public call returned."""
    for probe, reply in ctx.attention():
        if reply.ok and probe.t["v"].shape[-1] != probe.t["q"].shape[-1]:
            return False
    return True


RAISED = (Premise("the call it quotes raised what it says", quoted_call_raised),)
WIDTH_RAISED = (*RAISED, Premise("every public call whose d_v differs from d_k raised",
                                 every_other_width_raised))
NOT_REFUSED = (Premise("the call it quotes was not refused with ValueError", quoted_call_was_not_refused),)
NOT_FINITE = (Premise("the call it quotes returned NaN or inf", quoted_output_not_finite),)


# ---------------------------------------------------------------- the head and the gradients


def head_output_differs(ctx: Context, facts: Facts) -> bool:
    quoted = _quoted(ctx, facts)
    if quoted is None or not quoted[1].ok or "out" not in quoted[1].tensors:
        return False
    probe, reply = quoted
    right = probe.expected_head()["out"]
    got = reply.tensors["out"].double()
    return got.shape != right.shape or not torch.allclose(got, right, atol=1e-8)


def missing_gradients_are_cuts(ctx: Context, facts: Facts) -> bool:
    """Each projection said to get no gradient is one the head hands to attention (an unused one is wiring)."""
    named = [n.removeprefix("SingleHead.") for n in facts.get("missing", "").split(", ")]
    unused = (ev.head_wiring(ctx) or {}).get("unused", "").split(", ")
    return not any(n in unused for n in named if n in ("query", "key", "value"))


def float32_level_everywhere(ctx: Context, facts: Facts) -> bool:
    """"Right only to float32's rounding": with the chapter's scale, no float64 value probe is off by more."""
    if ev.read_scale(ctx) is not None or facts.get("what", "").startswith("float64 inputs came back"):
        return True  # a wrong scale is held to its own reading by the reader; a dtype is read directly
    for probe, reply in ctx.attention(families=("worked", "rand")):
        got = ev.output(reply, probe)
        if probe.t["q"].dtype != torch.float64 or got is None or not bool(torch.isfinite(got).all()):
            continue
        want = probe.expected()[0]
        if got.shape == want.shape and float((got.double() - want).abs().max()) > 1e-4 * max(1.0, float(want.abs().max())):
            return False
    return True


HEAD_DIFFERS = (Premise("the head's output differs from the chapter's", head_output_differs),)
CUT = (Premise("a projection said to get no gradient is one the head uses", missing_gradients_are_cuts),)
FLOAT32 = (Premise("no float64 result is further off than float32 rounding", float32_level_everywhere),)
