"""Fixtures every test folder may use: one warm sandbox for the session."""

from __future__ import annotations

import pytest

from grader.sandbox import Limits, Sandbox


@pytest.fixture(scope="session")
def sandbox():
    # A short per-call deadline keeps the infinite-loop mutant cheap; real grading uses the defaults.
    with Sandbox(limits=Limits(call_s=1.0, load_s=3.0, submission_s=10.0), quiet=True) as sb:
        yield sb
