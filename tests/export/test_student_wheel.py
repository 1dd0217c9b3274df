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


def test_installed_student_wheel_checks_quizzes_and_lists_cards(student_venv, installed_grader, tmp_path):
    grader = installed_grader(student_venv)
    grader.assert_imported_from_the_venv(tmp_path)

    shutil.copy(ROOT / "student_template" / "attention.py", tmp_path / "attention.py")
    stub = grader.run(tmp_path, "check", "attention.py", "--json")
    assert stub.returncode == 0, stub.stderr
    assert json.loads(stub.stdout)["score"] == 0
    grader.assert_check_diagnoses(tmp_path)
    grader.assert_quiz_and_cards(tmp_path)

    for verb in INSTRUCTOR_VERBS:
        refused = grader.run(tmp_path, verb, "attention.py")
        assert refused.returncode == 2 and "invalid choice" in refused.stderr, (verb, refused.stderr)
        assert "Traceback" not in refused.stderr


def test_quiz_and_cards_work_without_torch(torchless_venv, installed_grader, tmp_path):
    grader = installed_grader(torchless_venv)
    # The venv has teeth: torch cannot be imported there, though numpy (a dependency) can.
    probe = subprocess.run([str(torchless_venv / "bin" / "python"), "-c", "import numpy; import torch"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'torch'" in probe.stderr
    grader.assert_quiz_and_cards(tmp_path)
    # Checking code does need torch: one line that says how to install it, never a traceback.
    shutil.copy(ROOT / "student_template" / "attention.py", tmp_path / "attention.py")
    check = grader.run(tmp_path, "check", "attention.py")
    assert check.returncode == 2 and "Traceback" not in check.stderr
    assert "torch" in check.stderr and "--index-url" in check.stderr and len(check.stderr.strip().splitlines()) == 1
