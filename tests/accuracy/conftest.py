"""Fixtures for the mutation corpus: the generator, the in-process behaviour probe and the mutants."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _load(name: str, filename: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def mutate():
    return _load("accuracy_mutate", "mutate.py")


@pytest.fixture(scope="session")
def behaviour():
    return _load("accuracy_behaviour", "behaviour.py")


@pytest.fixture(scope="session")
def mutants(mutate):
    return mutate.generate()


@pytest.fixture(scope="session")
def verdicts():
    return _load("accuracy_verdicts", "verdicts.py")


@pytest.fixture(scope="session")
def mutant_verdicts(mutants, verdicts, tmp_path_factory):
    """Every mutant graded once, in one class run, as an instructor with a fixed secret: {name: verdict}."""
    from grader.batch.run import grade_files

    mutate = sys.modules["accuracy_mutate"]
    written = mutate.write(tmp_path_factory.mktemp("mutants"), mutants)
    reports = grade_files([p for _, p in written], secret=verdicts.SECRET)
    return {m.name: verdicts.mutant_verdict(m, r) for (m, _), r in zip(written, reports, strict=True)}


def pytest_generate_tests(metafunc):
    """Parametrise over the corpus at collection; a test module's KNOWN_WRONG tables become strict xfails."""
    kinds = {"mutant_name": lambda m: not m.equivalent,
             "expected_name": lambda m: not m.equivalent and m.expected is not None,
             "equivalent_name": lambda m: m.equivalent}
    for arg, keep in kinds.items():
        if arg not in metafunc.fixturenames:
            continue
        known = getattr(metafunc.module, "KNOWN_WRONG", {}).get(arg, {})
        names = [m.name for m in _load("accuracy_mutate", "mutate.py").generate() if keep(m)]
        unknown = set(known) - set(names)
        assert not unknown, f"KNOWN_WRONG[{arg!r}] names no mutant: {sorted(unknown)}"
        metafunc.parametrize(arg, [
            pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=known[n])) if n in known else n
            for n in names])
