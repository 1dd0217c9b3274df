"""The sandbox folder's warm sandboxes, from the session's factory (tests/conftest.py) with this
folder's tighter limits: `sandbox` isolated, `open_sandbox` without namespaces or the uid drop (the
negative control for every isolation test)."""

from __future__ import annotations

import pytest
from sandbox_kit import TEST_LIMITS


@pytest.fixture(scope="session")
def sandbox(sandbox_for):
    return sandbox_for(TEST_LIMITS)


@pytest.fixture(scope="session")
def open_sandbox(sandbox_for):
    return sandbox_for(TEST_LIMITS, isolate=False)
