"""The student's wheel from `release`, installed as its README says (the CPU torch first) into a fresh
venv: `grader check`, `grader quiz check` and `grader cards --list` work from another folder, the
instructor's verbs are refused; in a venv without torch the quiz and the cards still work."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR_VERBS = ("grade", "merge", "catalogue", "demo", "release", "schemas", "rubric", "export")


def _wheel(bundle: Path) -> Path:
    return next(bundle.glob("attention_grader-*+student-py3-none-any.whl"))


@pytest.fixture(scope="module")
def student_venv(student_bundle, wheel_venv) -> Path:
    return wheel_venv(_wheel(student_bundle))


@pytest.fixture(scope="module")
def torchless_venv(student_bundle, wheel_venv) -> Path:
    return wheel_venv(_wheel(student_bundle), torch=False)


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(cwd / "state"),
           "HOME": str(cwd)}
    return subprocess.run([str(venv / "bin" / "grader"), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _quiz_and_cards(venv: Path, where: Path) -> None:
    (where / "answers.yaml").write_text("what-mixes: Queries and keys set the weights; the values are mixed.\n")
    quiz = _run(venv, where, "quiz", "check", "answers.yaml", "--json")
    assert quiz.returncode == 0, quiz.stderr
    verdicts = {item["id"]: item["verdict"] for item in json.loads(quiz.stdout)["items"]}
    assert verdicts["what-mixes"] == "correct" and verdicts["diagonal"] == "unanswered"

    cards = _run(venv, where, "cards", "--list", "--state", str(where / "cards.json"))
    assert cards.returncode == 0, cards.stderr
    assert "card-mask-diagonal" in cards.stdout


def test_installed_student_wheel_checks_quizzes_and_lists_cards(student_venv, tmp_path):
    where = subprocess.run([str(student_venv / "bin" / "python"), "-c", "import grader; print(grader.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(student_venv)) and not where.startswith(str(ROOT))

    shutil.copy(ROOT / "student_template" / "attention.py", tmp_path / "attention.py")
    stub = _run(student_venv, tmp_path, "check", "attention.py", "--json")
    assert stub.returncode == 0, stub.stderr
    assert json.loads(stub.stdout)["score"] == 0

    shutil.copy(ROOT / "reference" / "mutants" / "zero_fill_mask.py", tmp_path / "buggy.py")
    check = _run(student_venv, tmp_path, "check", "buggy.py", "--json")
    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert report["diagnoses"][0]["id"] == "zero_fill_mask"  # the shipped fingerprints were found
    assert 0 < report["score"] < report["max_score"]

    _quiz_and_cards(student_venv, tmp_path)

    for verb in INSTRUCTOR_VERBS:
        refused = _run(student_venv, tmp_path, verb, "attention.py")
        assert refused.returncode == 2 and "invalid choice" in refused.stderr, (verb, refused.stderr)
        assert "Traceback" not in refused.stderr


def test_quiz_and_cards_work_without_torch(torchless_venv, tmp_path):
    python = str(torchless_venv / "bin" / "python")
    # The venv has teeth: torch cannot be imported there, though numpy (a dependency) can.
    probe = subprocess.run([python, "-c", "import numpy; import torch"], cwd=tmp_path, capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'torch'" in probe.stderr
    _quiz_and_cards(torchless_venv, tmp_path)
    # Checking code does need torch: one line that says how to install it, never a traceback.
    shutil.copy(ROOT / "student_template" / "attention.py", tmp_path / "attention.py")
    check = _run(torchless_venv, tmp_path, "check", "attention.py")
    assert check.returncode == 2 and "Traceback" not in check.stderr
    assert "torch" in check.stderr and "--index-url" in check.stderr and len(check.stderr.strip().splitlines()) == 1
