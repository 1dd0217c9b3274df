"""Where the project's own corpora live: the reference, its mutants, the correct variants, the template."""

from __future__ import annotations

from pathlib import Path

from grader.diagnosis.catalogue import parse_docstring

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "attention.py"
MUTANTS = sorted((ROOT / "reference" / "mutants").glob("*.py"))
VARIANTS = sorted((ROOT / "tests" / "variants").glob("*.py"))
TEMPLATE = ROOT / "student_template" / "attention.py"
SECRET = "test-secret"


def mutant_id(path: Path) -> str:
    return parse_docstring(path)["diagnosis"]
