"""The GitHub Classroom workflow in docs/instructors.md works (issue 20, item 8): it holds no secret, and its grading step, run as
written on a correct and on a buggy file, exits 0 and 1, so Classroom's points follow the score."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _workflow() -> dict:
    guide = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    section = guide[guide.index("### GitHub Classroom, without a secret"):]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S)[1])


def _grading_step(workflow: dict) -> str:
    (job,) = workflow["jobs"].values()
    (command,) = [s["run"] for s in job["steps"] if "grader check" in s.get("run", "")]
    return command


def test_the_workflow_holds_no_secret():
    text = yaml.safe_dump(_workflow())
    assert "secrets." not in text and "GRADER_SECRET" not in text


def test_its_grading_step_exits_by_the_score(tmp_path):
    command = _grading_step(_workflow())
    argv = shlex.split(command)
    assert argv[:2] == ["grader", "check"] and "--fail-under" in argv
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SECRET"}  # as in a student's repository
    codes = {}
    for name, source in (("correct", ROOT / "reference" / "attention.py"),
                         ("buggy", ROOT / "reference" / "mutants" / "zero_fill_mask.py")):
        repo = tmp_path / name
        repo.mkdir()
        (repo / "attention.py").write_text(source.read_text())
        # The student bundle installs the `grader` command; here it is this checkout's, by the same module.
        done = subprocess.run([sys.executable, "-m", "grader", *argv[1:]], cwd=repo, capture_output=True, text=True,
                              env=env, timeout=300)
        codes[name] = done.returncode
        assert (repo / "feedback.md").is_file(), done.stderr
    assert codes == {"correct": 0, "buggy": 1}


def test_grade_fails_under_the_threshold_too(tmp_path):
    buggy = tmp_path / "attention.py"  # the zero-fill mutant scores 48 of 100 under the shipped rubric
    buggy.write_text((ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text())
    env = dict(os.environ, GRADER_SECRET="ci")
    codes = [subprocess.run([sys.executable, "-m", "grader", "grade", str(buggy), "--json", "--fail-under", t],
                            capture_output=True, text=True, env=env, timeout=300).returncode for t in ("50", "40")]
    assert codes == [1, 0]


def test_a_threshold_is_a_percentage(capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser("check").parse_args(["check", "attention.py", "--fail-under", "120"])
    assert exited.value.code == 2 and "between 0 and 100" in capsys.readouterr().err
