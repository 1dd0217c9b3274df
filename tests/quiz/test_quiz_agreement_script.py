"""`bench/quiz_agreement.py FILE`: the one command that measures the judge on a new labelled answer file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "quiz_agreement.py"

# One answer labelled rightly, one labelled correct that is wrong (false praise cannot occur: the judge marks it
# incorrect), one right answer labelled partial: 1 of 3 three ways, 2 of 3 correct-or-not.
LABELLED = """\
answers:
- item: softmax-axis
  answer: A
  verdict: correct
- item: softmax-axis
  answer: B
  verdict: correct
- item: softmax-axis
  answer: A, over the keys
  verdict: incorrect
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_a_labelled_file_is_measured(tmp_path):
    path = tmp_path / "new_answers.yaml"
    path.write_text(LABELLED, encoding="utf-8")
    out = _run(str(path), "--misses")
    assert out.returncode == 0, out.stderr
    assert "three-way 1/3" in out.stdout
    assert "correct-or-not 1/3" in out.stdout
    assert "false praise 1" in out.stdout
    assert "undetermined 0/3" in out.stdout
    assert "confusion (rows: label, columns: judge)" in out.stdout
    assert "#1 correct -> incorrect: B" in out.stdout


def test_a_missing_or_malformed_file_gets_one_line(tmp_path):
    assert _run(str(tmp_path / "absent.yaml")).returncode == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("answers:\n- item: softmax-axis\n  verdict: correct\n", encoding="utf-8")
    out = _run(str(bad))
    assert out.returncode == 2 and "not a labelled answer file" in out.stderr and "Traceback" not in out.stderr
