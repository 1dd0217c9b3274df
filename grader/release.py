"""The student bundle: the template, the self-check and the visible probes' fingerprints; no solution.

Left out on purpose: reference/ (the solution and the mutants, each one edit from a solution),
the instructor rubric with its hidden checks, tests/ and any secret.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from grader.paths import ROOT, SELF_CHECK_RUBRIC


def build_bundle(out: Path) -> Path:
    # The fingerprints ship as committed (a test keeps them current); release never rewrites the tree.
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "grader", out / "grader", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # The package data travels inside grader/; only the self-check rubric among the rubrics.
    rubrics = out / "grader" / "data" / "rubrics"
    shutil.rmtree(rubrics)
    rubrics.mkdir()
    (rubrics / "self_check.yaml").write_text(SELF_CHECK_RUBRIC.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copy(ROOT / "student_template" / "attention.py", out / "attention.py")
    shutil.copy(ROOT / "student_template" / "README.md", out / "README.md")
    # The same pins as the project itself, read from pyproject.toml rather than written twice.
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (out / "requirements.txt").write_text("\n".join(deps) + "\n")
    return out
