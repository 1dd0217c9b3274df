"""What every check is (its declaration) and what it returns, before the rubric turns it into points.

A check is declared once, next to its function in its family module, with `@check(...)`: its id,
title, group, chapter section, the entry point it needs, what it proves and what a passing student
is told. `grader.checks.registry` collects the declarations; nothing else lists checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

# Chapter sections a check sends the student back to (the family modules import them from here).
from grader.checks.native import native_code
from grader.vocabulary import BASELINE, DELIVER, HEAD, HIDE, PROVE_TEETH, SHARES, TRAINABLE

__all__ = ["BASELINE", "DEFAULT_TOLERANCES", "DELIVER", "HEAD", "HIDE", "PROVE_TEETH", "SHARES", "TRAINABLE",
           "CheckOutcome", "CheckSpec", "Evaluator", "Outcome", "Tolerance", "check"]

Outcome = Literal["passed", "failed", "error"]


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


# PyTorch's own assert_close defaults for float32; float64 tight enough to see a wrong formula.
DEFAULT_TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(atol=1e-12, rtol=1e-10),
    "float32": Tolerance(atol=1e-5, rtol=1.3e-6),
    # A half-precision result is judged (never a crash); these are assert_close's own defaults.
    "float16": Tolerance(atol=1e-5, rtol=1e-3),
    "bfloat16": Tolerance(atol=1e-5, rtol=1.6e-2),
}


@dataclass
class CheckOutcome:
    """One check's verdict on one submission, computed in the grader from returned tensors."""

    status: Outcome
    cases_passed: int
    cases_total: int
    feedback: str
    expected: str | None = None
    observed: str | None = None
    finding: str | None = None  # which of the check's declared findings the feedback quotes (for hints)
    findings: tuple[str, ...] = ()  # every declared finding it made (a rubric's severity band may need one)
    # The entry points whose calls all raised NotImplementedError, when that alone kept this check
    # from running (an untouched stub): reports show it as "to do", not as an error to read.
    not_written: tuple[str, ...] = ()


Evaluator = Callable[..., CheckOutcome]


@dataclass(frozen=True)
class CheckSpec:
    """One check, declared once: everything the registry, the rubric and the report know about it."""

    id: str
    title: str
    group: str
    section: str
    proves: str
    passed: str  # what a student whose submission passes is told
    needs: str = "causal_attention"  # the entry point the check calls
    # A property (shapes, untouched inputs, invariances, gradients, the mask's form) is also true of
    # code that computes no attention at all (returning v with identity weights): it pays only when
    # the submission's weights respond to its queries and keys.
    property: bool = False
    # What the check can find, by name: a rubric hint may be for some of them only (`when`).
    findings: tuple[str, ...] = ()
    evaluate: Evaluator | None = field(default=None, compare=False, repr=False)

    def run(self, obs, tol) -> CheckOutcome:
        canned = obs.answers_only_public() if obs is not None and self.id != "computes_attention" else None
        if canned is not None:  # answers for the public probes only: no check pays, value checks included
            return CheckOutcome("error", 0, 1, f"Not credited: {canned}")
        native = native_code(obs) if obs is not None and self.id != "forbidden_api" else None
        if native is not None:  # code that could undo the sandbox's refusals: forbidden_api names it, nothing pays
            return CheckOutcome("error", 0, 1, f"Not credited: {native}.")
        if self.property:
            missing = obs.attention_missing()
            if missing is not None:
                # "error": nothing was judged, so no misconception may be read from this outcome.
                return CheckOutcome("error", 0, 1, "Not credited: this property only counts for code that computes "
                                    f"attention, and {missing}", not_written=obs.attention_not_written())
        outcome = self.evaluate(obs, tol)
        if outcome.not_written and not set(outcome.not_written) <= set(obs.not_written()):
            outcome = replace(outcome, not_written=())  # written, raising on some inputs only: a finding
        if outcome.status == "passed" and not outcome.feedback:
            outcome = replace(outcome, feedback=self.passed)
        return outcome


def check(id: str, *, title: str, group: str, section: str, proves: str, passed: str,
          needs: str = "causal_attention", property: bool = False,
          findings: tuple[str, ...] = ()) -> Callable[[Evaluator], Evaluator]:
    """Declare the decorated function as check `id`; the registry finds it on its family module."""

    def declare(fn: Evaluator) -> Evaluator:
        fn.check_spec = CheckSpec(id, title, group, section, proves, passed, needs, property, findings, fn)
        return fn

    return declare
