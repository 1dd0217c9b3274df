"""Fixtures for the real-code corpus: the frozen expectations and one class run over every file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

VERDICTS = Path(__file__).resolve().parents[1] / "accuracy" / "verdicts.py"


def _verdicts():
    if "accuracy_verdicts" not in sys.modules:
        spec = importlib.util.spec_from_file_location("accuracy_verdicts", VERDICTS)
        module = importlib.util.module_from_spec(spec)
        sys.modules["accuracy_verdicts"] = module
        spec.loader.exec_module(module)
    return sys.modules["accuracy_verdicts"]


@pytest.fixture(scope="session")
def verdicts():
    return _verdicts()


@pytest.fixture(scope="session")
def real_graded(verdicts):
    """{name: (expectation, report)} for every file of tests/real, graded once as an instructor."""
    from grader.batch.run import grade_files

    paths = verdicts.real_files()
    manifest = verdicts.load_manifest()
    reports = grade_files(paths, secret=verdicts.SECRET)
    return {p.stem: (manifest[p.stem], r) for p, r in zip(paths, reports, strict=True)}


def pytest_generate_tests(metafunc):
    """One case per real file; the test module's KNOWN_WRONG tables become strict xfails."""
    for arg in ("band_name", "ids_name"):
        if arg not in metafunc.fixturenames:
            continue
        known = getattr(metafunc.module, "KNOWN_WRONG", {}).get(arg, {})
        names = [p.stem for p in _verdicts().real_files()]
        unknown = set(known) - set(names)
        assert not unknown, f"KNOWN_WRONG[{arg!r}] names no file: {sorted(unknown)}"
        metafunc.parametrize(arg, [
            pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=known[n])) if n in known else n
            for n in names])
