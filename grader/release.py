"""The student bundle: the template, the self-check and the visible probes' fingerprints; no solution.

Left out on purpose: reference/ (the solution and the mutants, each one edit from a solution),
the instructor rubric with its hidden checks, tests/ and any secret.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.diagnosis import catalogue

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = """torch>=2.2,<2.14
numpy>=1.26,<3
pydantic>=2.6,<3
pyyaml>=6,<7
jsonschema>=4.20,<5
rich>=13,<16
matplotlib>=3.8,<4
fsrs>=6,<7
platformdirs>=4,<5
rapidfuzz>=3.5,<4
"""


def build_bundle(out: Path) -> Path:
    catalogue.write()  # fingerprints from the current mutants and probes
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "grader", out / "grader", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (out / "rubrics").mkdir(parents=True)
    shutil.copy(ROOT / "rubrics" / "self_check.yaml", out / "rubrics" / "self_check.yaml")
    shutil.copy(ROOT / "student_template" / "attention.py", out / "attention.py")
    shutil.copy(ROOT / "student_template" / "README.md", out / "README.md")
    shutil.copy(ROOT / "quiz.json", out / "quiz.json")
    (out / "requirements.txt").write_text(REQUIREMENTS)
    return out
