"""A sandbox that cannot start says so in one line (which interpreter, as whom, what to do), never a
traceback: e.g. a grader whose interpreter sits under /root, run by another user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.sandbox import Sandbox, SandboxError, seed

ROOT = Path(__file__).resolve().parents[2]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_an_interpreter_that_cannot_be_run_is_one_clear_error(monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied", sys.executable)

    monkeypatch.setattr(Sandbox, "_popen", staticmethod(refused))
    monkeypatch.setattr(seed, "fork_zygote", lambda *args: None)  # the spawned path, seed or not
    sandbox = Sandbox(quiet=True, userns=False)
    with pytest.raises(SandboxError) as caught:
        sandbox.start()
    message = str(caught.value)
    assert sys.executable in message and "Permission denied" in message and "as user " in message
    assert "virtual environment" in message and "\n" not in message
    assert sandbox._sock is None and sandbox._proc is None  # nothing half-started is kept


def test_check_as_another_user_whose_interpreter_is_out_of_reach():
    """The case as found: `grader check` run as nobody with a venv whose interpreter nobody may not exec."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the grader as nobody")
    probe = subprocess.run([*NOBODY, sys.executable, "-c", "import os, sys; print(os.access(sys.executable, os.X_OK))"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != "False":
        pytest.skip(f"nobody can run {sys.executable} here (or not at all): the case does not arise")
    reach = subprocess.run([*NOBODY, sys.executable, "-c", "import grader"], capture_output=True, text=True, cwd="/")
    if reach.returncode != 0:
        # A checkout in a private folder (mktemp -d is 0700): Python itself stops before any grader code runs.
        pytest.skip(f"nobody cannot read the grader's package at {ROOT}: the case does not arise")
    # nobody cannot enter pytest's private tmp folders: a world-readable folder of its own, removed after.
    where = Path(tempfile.mkdtemp(prefix="grader-nobody-"))
    try:
        where.chmod(0o777)
        shutil.copy(ROOT / "student_template" / "attention.py", where / "attention.py")
        (where / "attention.py").chmod(0o644)
        env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(where / "state"), "HOME": str(where)}
        proc = subprocess.run([*NOBODY, sys.executable, "-m", "grader", "check", "attention.py"], cwd=where, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(where)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "could not be started as user nobody" in lines[0], lines
