"""Fixtures every test folder may use: one warm sandbox and one student bundle for the session; and a
guard that the suite never rewrites the shipped fingerprints (grader/data/catalogue.json)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from grader.sandbox import Limits, Sandbox

SHIPPED_FINGERPRINTS = Path(__file__).resolve().parents[1] / "grader" / "data" / "catalogue.json"


def _stamp(path: Path) -> tuple[int, str]:
    return path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="session", autouse=True)
def fingerprints_untouched():
    """Fails the session (an error at teardown) if anything in it rewrote the committed fingerprints."""
    before = _stamp(SHIPPED_FINGERPRINTS)
    yield
    if _stamp(SHIPPED_FINGERPRINTS) != before:
        pytest.fail(f"the suite rewrote {SHIPPED_FINGERPRINTS}: tests and release must only read it")


@pytest.fixture(scope="session", autouse=True)
def own_user_data(tmp_path_factory):
    """No test reads or writes the user's data directory (hint state, card state, recent diagnoses): a
    developer's own `grader check` runs put cards first in `grader cards` and failed a test that did not
    expect them. Subprocesses inherit it; a test that names its own state still wins."""
    saved = {k: os.environ.get(k) for k in ("GRADER_DATA_DIR", "GRADER_HINT_STATE", "GRADER_RECENT_CARDS")}
    os.environ["GRADER_DATA_DIR"] = str(tmp_path_factory.mktemp("user-data"))
    os.environ.pop("GRADER_HINT_STATE", None)
    os.environ.pop("GRADER_RECENT_CARDS", None)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def sandbox():
    # A short per-call deadline keeps the infinite-loop mutant cheap; real grading uses the defaults.
    with Sandbox(limits=Limits(call_s=1.0, load_s=3.0, submission_s=10.0), quiet=True) as sb:
        yield sb


@pytest.fixture(scope="session")
def student_bundle(tmp_path_factory) -> Path:
    """`release`'s output (wheel, README, template), built once: read by tests/release, installed by tests/export."""
    from grader.release import build_bundle

    before = _stamp(SHIPPED_FINGERPRINTS)
    out = build_bundle(tmp_path_factory.mktemp("release") / "bundle")
    assert _stamp(SHIPPED_FINGERPRINTS) == before  # release never rewrites the shipped fingerprints
    return out
