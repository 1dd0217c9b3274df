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
