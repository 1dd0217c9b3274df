"""What every check returns, before the rubric turns it into points."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["passed", "failed", "error"]


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


# PyTorch's own assert_close defaults for float32; float64 tight enough to see a wrong formula.
DEFAULT_TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(atol=1e-12, rtol=1e-10),
    "float32": Tolerance(atol=1e-5, rtol=1.3e-6),
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
    details: list[str] = field(default_factory=list)
