"""`python -m grader` works from any folder, including one that holds a clone named `grader` (issue 20)."""

from __future__ import annotations

import subprocess
import sys


def test_runs_beside_a_folder_named_grader(tmp_path):
    (tmp_path / "grader").mkdir()  # a clone of the project: its root has no __init__.py
    (tmp_path / "grader" / "README.md").write_text("a clone\n")
    done = subprocess.run([sys.executable, "-m", "grader", "quiz", "--help"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "quiz" in done.stdout
