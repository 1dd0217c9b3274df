"""The comparisons the checks make in fewer operations than `torch.allclose` give its answer exactly."""

from __future__ import annotations

import itertools

import torch

from grader.checks.base import Tolerance
from grader.checks.observations import close, within

EDGES = [0.0, -0.0, 1.0, -1.0, 1e-12, 1 + 1e-10, 1 - 1e-12, 1e308, -1e308, 5e-324, float("nan"), float("inf"),
         -float("inf")]
TOLERANCES = [Tolerance(1e-12, 1e-10), Tolerance(1e-5, 1e-5), Tolerance(0.0, 0.0), Tolerance(1e-6, 0.0)]


def _allclose(a: torch.Tensor, e: torch.Tensor, t: Tolerance) -> bool:
    return bool(torch.allclose(a, e, atol=t.atol, rtol=t.rtol))


def test_within_is_allclose_for_a_finite_expected_value():
    for a, e in itertools.product(EDGES, EDGES):
        if not torch.isfinite(torch.tensor(e)):
            continue  # within is only asked where the expected values are finite
        for t in TOLERANCES:
            A, E = torch.tensor([a], dtype=torch.float64), torch.tensor([e], dtype=torch.float64)
            assert within(A, E, t) == _allclose(A, E, t), (a, e, t)
    g = torch.Generator().manual_seed(0)
    for _ in range(500):  # differences around every tolerance's edge
        E = torch.randn(3, 4, generator=g, dtype=torch.float64)
        A = E + torch.randn(3, 4, generator=g, dtype=torch.float64) * 10.0 ** -int(torch.randint(0, 14, (1,), generator=g))
        for t in TOLERANCES:
            assert within(A, E, t) == _allclose(A, E, t)
            assert within(A, E, t, allowed=lambda t, E=E: t.atol + t.rtol * E.abs()) == _allclose(A, E, t)


def test_close_with_a_finite_expected_value_says_what_the_full_test_says():
    band = Tolerance(1e-5, 1e-5)
    e = torch.tensor([[0.5, 0.25], [1.0, -2.0]], dtype=torch.float64)
    for bump in (0.0, 1e-13, 1e-9, 1e-6, 1e-3, float("nan"), float("inf")):
        a = e.clone()
        a[1, 0] += bump
        for t, b in itertools.product(TOLERANCES, (None, band)):
            assert close(a, e, t, b, finite_expected=True) == close(a, e, t, b)
            assert close(a.float(), e, t, b, finite_expected=True) == close(a.float(), e, t, b)
