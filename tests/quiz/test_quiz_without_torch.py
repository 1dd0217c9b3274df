"""The quiz and the recall cards run where torch (and `resource`, missing on Windows) cannot be imported.

Each command runs in a fresh interpreter whose import system refuses torch, matplotlib and resource, as a
machine without them would. A module-level import anywhere on the quiz's path makes these tests fail.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKED = ("torch", "matplotlib", "resource")

# Runs the CLI as `python -m grader ARGS` would, after installing a finder that refuses BLOCKED.
RUNNER = """
import runpy, sys
BLOCKED = {blocked!r}
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
for name in BLOCKED:
    sys.modules.pop(name, None)
sys.meta_path.insert(0, Refuse())
sys.argv = ["grader", *{args!r}]
runpy.run_module("grader", run_name="__main__", alter_sys=True)
"""


def run_blocked(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    code = RUNNER.format(blocked=BLOCKED, args=list(args))
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, cwd=ROOT)


def test_the_blocker_has_teeth():
    # Negative control: grading a submission needs torch, so it must fail under the same blocker.
    proc = run_blocked("check", str(ROOT / "student_template" / "attention.py"))
    assert proc.returncode != 0
    # The CLI turns the missing torch into one line with the install command (never a traceback).
    assert "check needs torch" in proc.stderr and "Traceback" not in proc.stderr


def test_quiz_check_without_torch(tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text("softmax-axis: A\nvalue-change: The weights stay the same; the output rises by 1.\n")
    proc = run_blocked("quiz", "check", str(answers))
    assert proc.returncode == 0, proc.stderr
    assert "softmax-axis: correct" in proc.stdout and "value-change: correct" in proc.stdout


@pytest.mark.parametrize("args,stdin,expect", [
    (["--list"], "", "card-mask-diagonal"),
    (["--limit", "1"], "\n3\n", "card(s) still due"),
])
def test_cards_without_torch_or_resource(tmp_path, args, stdin, expect):
    state = tmp_path / "cards.json"
    proc = run_blocked("cards", "--state", str(state), "--now", "2026-10-10T09:00:00Z", *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert expect in proc.stdout
