"""What a student reads: scores as people write them, one quiet line about isolation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.report.view import isolation_text, points_text

ROOT = Path(__file__).resolve().parents[2]


def test_scores_read_like_scores():
    assert points_text(27.1667, 86) == "27.17 / 86"
    assert points_text(1 / 3, 1) == "0.33 / 1"
    assert points_text(86, 86) == "86 / 86"
    assert points_text(2.5, 11.5) == "2.5 / 11.5"


def test_isolation_is_named_with_what_it_means():
    assert isolation_text("rlimits-only").startswith("rlimits-only (your code ran as you")
    assert isolation_text("something new") == "something new"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to run a check as nobody")
def test_a_student_who_is_not_root_gets_one_quiet_line_and_no_warning():
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*nobody, sys.executable, "-c", "import grader"], cwd="/", capture_output=True,
                      env={**os.environ, "PYTHONPATH": str(ROOT)}).returncode != 0:
        pytest.skip("this checkout or interpreter is not readable by nobody")
    with tempfile.TemporaryDirectory() as tmp:  # under /tmp itself: pytest's folders are root's alone
        os.chmod(tmp, 0o777)
        sub = Path(tmp) / "attention.py"
        shutil.copy(ROOT / "examples" / "submission.py", sub)
        os.chmod(sub, 0o644)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADER_DATA_DIR": str(Path(tmp) / "data"), "NO_COLOR": "1"}
        done = subprocess.run([*nobody, sys.executable, "-m", "grader", "check", str(sub)], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = [line for line in done.stdout.splitlines() if "rlimits-only" in line]
    assert lines == ["Isolation: rlimits-only (your code ran as you, under time and memory limits); "
                     + lines[0].split("; ", 1)[1]]
    assert "Hint: Hint" not in done.stdout and "0.333333/1" not in done.stdout
