"""`grade` and `merge` on the command line: quiet under --json, one summary line otherwise, JUnit on request."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric

ROOT = Path(__file__).resolve().parents[2]


def _grader(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, GRADER_SECRET="cli-secret", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_class_run_json_then_summary_line_then_merge(tmp_path):
    cls = tmp_path / "class"
    cls.mkdir()
    (cls / "=cmd_7_1_attention.py").write_text((ROOT / "reference" / "attention.py").read_text())
    (cls / "empty_8_2_attention.py").write_text("")
    os.mkfifo(cls / "pipe_9_3_attention.py")
    out, junit = tmp_path / "out", tmp_path / "junit.xml"
    first = _grader("grade", str(cls), "--out", str(out), "--json", "--junit", str(junit))
    assert first.returncode == 0, first.stderr
    assert [r["score"] for r in json.loads(first.stdout)] == [100, 0]  # only the array on stdout
    assert "graded 3 students" not in first.stderr  # quiet under --json
    rows = list(csv.DictReader((out / "gradebook.csv").open()))
    assert [r["Student"] for r in rows] == ["'=cmd", "empty", "pipe"] and rows[2]["Status"] == "ungradable"
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert len(suites) == 3 and len(suites[0].findall("testcase")) == len(load_rubric(INSTRUCTOR_RUBRIC).checks)

    again = _grader("grade", str(cls), "--out", str(out))
    assert again.returncode == 0, again.stderr
    summary = [line for line in again.stderr.splitlines() if line.startswith("graded ")]
    assert len(summary) == 1 and ("2 graded (0 graded now from 0 distinct file(s), 2 from the store), 1 ungradable, 0 without a submission, "
                                  "0 grader errors") in summary[0]
    assert "pipe_9_3_attention.py: a FIFO" in again.stderr

    merged = _grader("merge", str(out), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr
    assert (tmp_path / "merged" / "gradebook.csv").read_text() == (out / "gradebook.csv").read_text()
    assert _grader("merge", str(tmp_path / "nothing"), "--out", str(tmp_path / "m2")).returncode == 2
