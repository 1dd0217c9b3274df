"""Issue 25, item 5: the grader never runs student code. Every entry point works from a folder full of
student files, among them an `argparse.py` and a `json.py` (modules the grader imports), and never
imports them: `python -m grader check` and `grade`, the console script, and Gradescope's run_autograder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.export.gradescope import RUN_AUTOGRADER
from grader.paths import INSTRUCTOR_RUBRIC

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ("argparse", "json", "tempfile")
TRAP = "open({marker!r}, 'a').write('{name} ran in the grader\\n')\nraise SystemExit(7)\n"


def _class_folder(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "students"
    folder.mkdir()
    marker = tmp_path / "ran.txt"
    shutil.copy(ROOT / "reference" / "attention.py", folder / "attention.py")
    for name in PLANTED:
        (folder / f"{name}.py").write_text(TRAP.format(marker=str(marker), name=name))
    return folder, marker


def _run(argv: list[str], cwd: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADER_DATA_DIR": str(tmp_path / "data"), "GRADER_SECRET": "s", **env}
    env.pop("PYTHONSAFEPATH", None)
    env["PYTHONPATH"] = str(ROOT)  # the grader as tested, wherever it is run from
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("verb", [["check", "attention.py", "--json"], ["grade", ".", "--json"]],
                         ids=["check", "grade"])
def test_python_m_grader_imports_nothing_from_the_current_folder(tmp_path, verb):
    folder, marker = _class_folder(tmp_path)
    done = _run([sys.executable, "-m", "grader", *verb], folder, tmp_path)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr[-2000:]
    reports = json.loads(done.stdout)
    graded = next(r for r in (reports if isinstance(reports, list) else [reports])
                  if r["submission"].endswith("attention.py"))
    assert graded["score"] == graded["max_score"]


def test_the_console_script_imports_nothing_from_the_current_folder(tmp_path):
    script = Path(sys.executable).parent / "grader"
    if not script.is_file():
        pytest.skip("the grader is not installed as a console script in this environment")
    folder, marker = _class_folder(tmp_path)
    done = _run([str(script), "check", "attention.py", "--json"], folder, tmp_path)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr[-2000:]


def test_run_autograder_imports_nothing_from_the_current_folder(tmp_path):
    folder, marker = _class_folder(tmp_path)
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "results").mkdir()
    shutil.copytree(folder, root / "submission")
    shutil.copy(INSTRUCTOR_RUBRIC, root / "source" / "rubric.yaml")
    (root / "source" / "secret").write_text("s")
    script = root / "source" / "run_autograder"
    script.write_text(RUN_AUTOGRADER)
    script.chmod(0o755)
    done = _run([str(script)], root / "submission", tmp_path, GRADER_AUTOGRADER_ROOT=str(root),
                GRADER_PYTHON=sys.executable)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 100
