"""Done when (issue 9): a 40-student export gives one row per student from their latest submission, and a
run killed with SIGKILL then resumed, or sharded three ways and merged, gives the same gradebook as one run."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grader.batch.merge import merge_stores
from grader.batch.run import grade_class
from grader.batch.store import STORE_NAME
from grader.intake.collect import collect
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric
from grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
SECRET = "class-run-secret"
SOURCES = {
    "ok": (ROOT / "reference" / "attention.py").read_text(),
    "zero_fill_mask": (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text(),
    "no_mask": (ROOT / "reference" / "mutants" / "no_mask.py").read_text(),
}
KINDS = list(SOURCES)


@pytest.fixture(scope="module")
def sandboxes(sandbox_for):
    # The default deadlines: no file here hangs, and a shared machine can be slow; a tight per-call
    # deadline would turn load into a verdict.
    return [sandbox_for(Limits()), sandbox_for(Limits(), copy=1)]


def _notebook(source: str) -> bytes:
    cells = ["import math\nimport torch\nfrom grader import check", source.split('"""', 2)[-1],
             "check(causal_attention)\n!ls"]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
        for c in cells]}).encode()


def build_export(root: Path) -> dict[str, str]:
    """A Canvas-style export of 40 students; returns student id -> what their latest submission is."""
    root.mkdir()
    expected = {}
    for i in range(34):
        uid, kind = str(1000 + i), KINDS[i % 3]
        if i < 6:  # a resubmission: the earlier file is something else, the later one counts
            older = KINDS[(i + 1) % 3]
            (root / f"student{i:02d}_{uid}_{500 + i}_attention.py").write_text(SOURCES[older])
            late = "_LATE" if i == 0 else ""
            (root / f"student{i:02d}{late}_{uid}_{800 + i}_attention-1.py").write_text(SOURCES[kind])
        else:
            (root / f"student{i:02d}_{uid}_{500 + i}_attention.py").write_text(SOURCES[kind])
        expected[uid] = kind
    (root / "notebook_2001_901_attention.ipynb").write_bytes(_notebook(SOURCES["ok"]))
    expected["2001"] = "ok"
    with zipfile.ZipFile(root / "zipper_2002_902_work.zip", "w") as z:
        z.writestr("work/attention.py", SOURCES["zero_fill_mask"])
        z.writestr("../escape.py", "x = 1\n")
    expected["2002"] = "zero_fill_mask"
    folder = root / "helper student"
    folder.mkdir()
    (folder / "attention.py").write_text("from helpers import SingleHead, causal_attention  # noqa: F401\n")
    (folder / "helpers.py").write_text(SOURCES["ok"])
    expected["helper student"] = "ok"
    (root / "empty_2004_904_attention.py").write_text("")
    expected["2004"] = "empty"
    (root / "hostile_2005_905_attention.py").write_text((ROOT / "tests" / "gallery" / "exit_at_import.py").read_text())
    expected["2005"] = "hostile"
    os.mkfifo(root / "fifo_2006_906_attention.py")
    expected["2006"] = "refused"  # handed in (named by Canvas), never read: ungradable, not "no submission"
    return expected


def _rows(out: Path) -> list[dict]:
    with open(out / "gradebook.csv", newline="") as f:
        return list(csv.DictReader(f))


def _check_rows(rows: list[dict], expected: dict[str, str]) -> None:
    assert sorted(r["ID"] for r in rows) == sorted(expected)  # exactly one row per student
    for r in rows:
        kind = expected[r["ID"]]
        if kind == "ok":
            assert r["Score"] == r["Max Score"] and r["Diagnoses"] == "", r
        elif kind in ("zero_fill_mask", "no_mask"):
            assert float(r["Score"]) < float(r["Max Score"]) and r["Diagnoses"].split()[0] == kind, r
        elif kind in ("empty", "hostile"):
            assert float(r["Score"]) == 0 and r["Status"] == "graded", r
        else:
            assert r["Score"] == "" and r["Status"] == "ungradable" and "FIFO" in r["Notes"], r
    late = [r for r in rows if r["Late"]]
    assert [r["ID"] for r in late] == ["1000"] and late[0]["Submission"].endswith("attention-1.py")


def test_export_one_run_shards_and_kill_resume(tmp_path, sandboxes):
    export = tmp_path / "export"
    expected = build_export(export)
    rubric = load_rubric(INSTRUCTOR_RUBRIC)
    intake = collect([str(export)])
    reasons = {Path(s.path).name: s.reason for s in intake.skipped}
    assert "FIFO" in reasons["fifo_2006_906_attention.py"] and "climbs out" in reasons["escape.py"]
    assert sum("older submission" in r for r in reasons.values()) == 6

    one = tmp_path / "one"
    run = grade_class(intake, rubric=rubric, secret=SECRET, out=one, sandboxes=sandboxes, hidden=[export])
    assert len(run.results) == 40 and run.summary.grader_errors == 0
    assert run.graded_now <= 7  # distinct sources are graded once each
    _check_rows(_rows(one), expected)
    assert (one / "reports").is_dir() and len(list((one / "reports").glob("*.graded.py"))) == 2
    single = (one / "gradebook.csv").read_text()

    again = grade_class(collect([str(export)]), rubric=rubric, secret=SECRET, out=one, sandboxes=sandboxes)
    assert again.graded_now == 0 and again.from_store == 39 and (one / "gradebook.csv").read_text() == single

    shards = [tmp_path / f"shard{k}" for k in (1, 2, 3)]
    for k, out in enumerate(shards, 1):
        part = grade_class(collect([str(export)]), rubric=rubric, secret=SECRET, out=out, shard=(k, 3),
                           sandboxes=sandboxes)
        assert 0 < len(part.results) < 40
    merged = merge_stores(shards, tmp_path / "merged")
    assert len(merged.results) == 40
    assert (tmp_path / "merged" / "gradebook.csv").read_text() == single
    assert json.loads((tmp_path / "merged" / "summary.json").read_text()) == json.loads((one / "summary.json").read_text())

    # SIGKILL a real class run once a report is saved, then rerun the same command: the same gradebook.
    resumed = tmp_path / "resumed"
    command = [sys.executable, "-m", "grader", "grade", str(export), "--out", str(resumed)]
    env = dict(os.environ, GRADER_SECRET=SECRET)
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    store = resumed / STORE_NAME
    try:
        while proc.poll() is None and not _saved(store):
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (resumed / "gradebook.csv").read_text() == single
    assert "graded 40 students" in done.stderr and "12 paths skipped" not in done.stderr


def _saved(store: Path) -> bool:
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT count(*) FROM reports").fetchone()[0] > 0
        finally:
            db.close()
    except sqlite3.Error:
        return False


def test_missing_path_exits_2_and_nothing_is_graded(tmp_path):
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(tmp_path / "typo.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_two_runs_share_one_out_folder_at_once(tmp_path, sandboxes):
    export = tmp_path / "export"
    export.mkdir()
    for i, kind in enumerate(["ok", "zero_fill_mask", "no_mask", "ok"]):
        (export / f"s{i}_{i}_{i}_attention.py").write_text(SOURCES[kind] + f"\n# {i}\n")
    rubric, out = load_rubric(INSTRUCTOR_RUBRIC), tmp_path / "out"
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda sb: grade_class(collect([str(export)]), rubric=rubric, secret=SECRET, out=out,
                                                    sandboxes=[sb]), sandboxes))
    scores = [[r.report.score for r in run.results] for run in runs]
    assert scores[0] == scores[1] and scores[0][0] == scores[0][3] == 100 and min(scores[0]) < 100
    assert not (out / "staged").exists()  # each run removed its own staging folder, the last one the emptied parent
    rows = _rows(out)
    assert [float(r["Score"]) for r in rows] == scores[0]
