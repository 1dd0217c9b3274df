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


def pytest_configure(config):
    """The session's sandboxes fork their servers from one seed, as the command line's do (`seed.plant`):
    one torch import and one walk of torch's modules for the whole session, instead of a fresh interpreter
    (about 3 s under load) per sandbox. Planted before collection, so it holds no test module, secret or
    reference; tests of the spawned path turn the seed off for themselves (`spawned_sandboxes`)."""
    import torch

    from grader.sandbox import seed

    seed.plant()
    # One intra-op thread, as the command line's own process runs (`process.plant_seed`): the tests'
    # tensors are tiny, and two threads on a busy 2-core machine made each grade of tests/checks 20 times
    # slower (0.13 s of CPU against 2.5 s, measured under load) without changing a value.
    torch.set_num_threads(1)


def pytest_unconfigure(config):
    from grader.sandbox import seed

    seed.uproot()


@pytest.fixture
def spawned_sandboxes(monkeypatch):
    """A sandbox started inside the test starts its server as a fresh interpreter, as without a seed."""
    from grader.sandbox import seed

    monkeypatch.setattr(seed, "fork_zygote", lambda *args: None)


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


# A short per-call deadline keeps the infinite-loop mutant cheap; real grading uses the defaults.
SESSION_LIMITS = Limits(call_s=1.0, load_s=3.0, submission_s=10.0)


@pytest.fixture(scope="session")
def sandbox_for():
    """The one place tests get a warm sandbox: `sandbox_for(limits, **options)` starts one per distinct
    limits and options (`copy` tells apart sandboxes a class run uses side by side) and keeps it for
    the session, so tests in every folder share it; closed when the session ends."""
    started: dict[str, Sandbox] = {}

    def get(limits: Limits = SESSION_LIMITS, *, copy: int = 0, **options) -> Sandbox:
        key = f"{limits.model_dump_json()} {sorted(options.items())} {copy}"
        if key not in started:
            sb = Sandbox(limits=limits, quiet=True, **options)
            sb.start()
            started[key] = sb
        return started[key]

    yield get
    for sb in started.values():
        sb.close()


@pytest.fixture(scope="session")
def sandbox(sandbox_for):
    return sandbox_for()


@pytest.fixture(scope="session")
def student_bundle(tmp_path_factory) -> Path:
    """`release`'s output (wheel, README, template), built once: read by tests/release, installed by tests/export."""
    from grader.release import build_bundle

    before = _stamp(SHIPPED_FINGERPRINTS)
    out = build_bundle(tmp_path_factory.mktemp("release") / "bundle")
    assert _stamp(SHIPPED_FINGERPRINTS) == before  # release never rewrites the shipped fingerprints
    return out
