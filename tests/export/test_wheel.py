"""`pip install` of the built wheel works from any directory: every data file is package data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_carries_the_data_and_no_solution(project_wheel):
    names = set(zipfile.ZipFile(project_wheel).namelist())
    for data in ("grader/data/rubrics/causal_attention.yaml", "grader/data/quiz.json",
                 "grader/data/catalogue.json", "grader/schemas/report.schema.json",
                 "grader/schemas/rubric.schema.json"):
        assert data in names, data
    assert not [n for n in names if n.startswith(("reference/", "tests/"))]


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(cwd / "state"),
           "HOME": str(cwd)}
    return subprocess.run([str(venv / "bin" / "grader"), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_installed_wheel_works_from_another_directory(installed, tmp_path):
    where = subprocess.run([str(installed / "bin" / "python"), "-c", "import grader; print(grader.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(installed)) and not where.startswith(str(ROOT))

    shutil.copy(ROOT / "reference" / "mutants" / "zero_fill_mask.py", tmp_path / "attention.py")
    check = _run(installed, tmp_path, "check", "attention.py", "--json")
    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert report["diagnoses"][0]["id"] == "zero_fill_mask"  # the shipped fingerprints were found
    assert 0 < report["score"] < report["max_score"]

    (tmp_path / "answers.yaml").write_text("what-mixes: Queries and keys set the weights; the values are mixed.\n")
    quiz = _run(installed, tmp_path, "quiz", "check", "answers.yaml", "--json")
    assert quiz.returncode == 0, quiz.stderr
    verdicts = {item["id"]: item["verdict"] for item in json.loads(quiz.stdout)["items"]}
    assert verdicts["what-mixes"] == "correct" and verdicts["diagonal"] == "unanswered"

    cards = _run(installed, tmp_path, "cards", "--list", "--state", str(tmp_path / "cards.json"))
    assert cards.returncode == 0, cards.stderr
    assert cards.stdout.strip()

    rubric = _run(installed, tmp_path, "rubric", "validate", str(ROOT / "grader/data/rubrics/causal_attention.yaml"))
    assert rubric.returncode == 0 and ": ok:" in rubric.stdout, rubric.stderr
    assert not (tmp_path / "build").exists() and os.listdir(tmp_path)
