"""Shared fixtures for the grading pipeline: one warm sandbox, the catalogue and the correct variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.diagnosis.catalogue import parse_docstring
from grader.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "attention.py"
MUTANTS = sorted((ROOT / "reference" / "mutants").glob("*.py"))
VARIANTS = sorted((ROOT / "tests" / "variants").glob("*.py"))
TEMPLATE = ROOT / "student_template" / "attention.py"
SECRET = "test-secret"


def mutant_id(path: Path) -> str:
    return parse_docstring(path)["diagnosis"]


@pytest.fixture(scope="session")
def sandbox():
    # A short per-call deadline keeps the infinite-loop mutant cheap; real grading uses the defaults.
    with Sandbox(limits=Limits(call_s=1.0, load_s=3.0, submission_s=10.0), quiet=True) as sb:
        yield sb
