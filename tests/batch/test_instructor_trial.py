"""Done when (the instructor trial's leftovers, /work/notes/instructor_trial.md items 6, 7 and 9): on a Canvas class
run with two students named "Li, Wei", every per-student output tells them apart by id and each feedback file is
that student's own; points print by one rule in every output; the end-of-run line counts students, and its
statuses add up to the roster plus the files of students not on it; no empty `staged/` is left behind; an override
that lifts a total above its severity band's cap is applied as given and said where it is read."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.report.view import score_text

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
MUTANT = {m: (ROOT / "reference" / "mutants" / f"{m}.py").read_text() for m in ("wrong_scale", "zero_fill_mask",
                                                                              "no_mask")}
SECRET = "trial-leftovers"
# (sortable name, roster name, Canvas user id, what they hand in); None: nothing handed in.
CLASS = [("lovelaceada", "Lovelace, Ada", "1001", REFERENCE),
         ("turingalan", "Turing, Alan", "1002", REFERENCE),  # the same source as Ada's: graded once
         ("hoppergrace", "Hopper, Grace", "1003", MUTANT["zero_fill_mask"]),
         ("liwei", "Li, Wei", "1006", REFERENCE + "\n# mine\n"),
         ("liwei", "Li, Wei", "1007", MUTANT["wrong_scale"]),
         ("knuthdonald", "Knuth, Donald", "1008", "txt"),
         ("hamiltonmargaret", "Hamilton, Margaret", "1012", None)]
ROSTER_ROWS = len(CLASS)
NOT_ON_ROSTER = 1  # droppedstudent, 1099


def _grader(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, GRADER_SECRET=SECRET, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, env=env,
                          timeout=600, cwd=ROOT)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    root = tmp_path_factory.mktemp("trial")
    export = root / "canvas"
    export.mkdir()
    for n, (sortable, _, uid, source) in enumerate(CLASS):
        if source == "txt":
            (export / f"{sortable}_{uid}_{70000 + n}_attention.py.txt").write_text(REFERENCE)
        elif source is not None:
            (export / f"{sortable}_{uid}_{70000 + n}_attention.py").write_text(source)
    (export / "droppedstudent_1099_70099_attention.py").write_text(MUTANT["no_mask"])
    roster = root / "grades.csv"
    with open(roster, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (12345)"])
        w.writerow(["    Points Possible", "", "", "", "", "100.00"])
        w.writerows([name, uid, f"S{uid}", f"login{uid}", "CS A", ""] for _, name, uid, _ in CLASS)
    out = root / "out"
    done = _grader("grade", str(export), "--out", str(out), "--roster", str(roster), "--lms", "canvas")
    assert done.returncode == 0, done.stderr
    return out, done


def test_two_students_of_one_name_are_told_apart_and_get_their_own_feedback(run):
    out, _ = run
    feedback = {p.name: p.read_text() for p in (out / "feedback").glob("*.md")}
    mine = {uid: [n for n in feedback if f"-{uid}-" in n] for uid in ("1006", "1007")}
    assert [len(v) for v in mine.values()] == [1, 1], sorted(feedback)  # the id is in each file's name
    assert "checks shown here passed" in feedback[mine["1006"][0]]  # 1006 handed in the correct file
    assert "Scores scaled by something other than 1/sqrt(d\\_k)" in feedback[mine["1007"][0]]
    assert "scaled" not in feedback[mine["1006"][0]]
    for summary in ("summary.md", "summary.html"):
        text = (out / summary).read_text()
        named = re.findall(r"Li, Wei(?: \((\d+)\))?", text)
        assert named and all(named), (summary, named)  # every mention carries the id
        assert re.search(r"wrong\\?_scale\)?</span></td><td class=\"num\">1</td>\s*<td>Li, Wei \(1007\)|"
                         r"\(wrong\\_scale\): 1: Li, Wei \(1007\)", text), summary
        assert "Knuth, Donald (1008)" in text  # the review list too
    with open(out / "review.csv", newline="") as f:
        assert ("Knuth, Donald", "1008") in [(r["Student"], r["ID"]) for r in csv.DictReader(f)]


def test_the_end_of_run_counts_add_up_to_the_class(run):
    _, done = run
    line = next(x for x in done.stderr.splitlines() if x.startswith("graded "))
    total = int(re.match(r"graded (\d+) students", line)[1])
    assert total == ROSTER_ROWS + NOT_ON_ROSTER, line
    assert f"({ROSTER_ROWS} on the roster, {NOT_ON_ROSTER} not on it)" in line
    parts = {k: int(v) for v, k in re.findall(r"(\d+) (graded|ungradable|without a submission|grader errors)\b",
                                              line.split(": ", 1)[1])}
    assert parts == {"graded": 6, "ungradable": 1, "without a submission": 1, "grader errors": 0}, line
    assert sum(parts.values()) == total
    # Ada's and Alan's file is one source, graded once: files and students are told apart, never mixed.
    assert "(6 graded now from 5 distinct file(s), 0 from the store)" in line


def test_no_empty_staged_folder_is_left_in_the_outputs(run):
    out, _ = run
    assert not (out / "staged").exists()


def test_points_print_by_one_rule_in_every_output(run):
    out, _ = run
    cells = []
    for name in ("gradebook.csv", "canvas-import.csv"):
        with open(out / name, newline="") as f:
            rows = list(csv.DictReader(f))
        cells += [v for r in rows for k, v in r.items() if k in ("Score", "Max Score", "Attention (12345)")
                  or k.startswith("check:")]
    assert cells and all(c == "" or c == score_text(float(c)) for c in cells), cells
    texts = [p.read_text() for p in (out / "feedback").glob("*.md")] + [(out / "summary.md").read_text()]
    points = [p for t in texts for p in re.findall(r"(\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)", t)]
    assert points and all(x == score_text(float(x)) for pair in points for x in pair), \
        sorted({x for pair in points for x in pair if x != score_text(float(x))})


def test_an_override_above_the_band_is_applied_and_said_where_it_is_read(run, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(run[0], out)
    too_many = _grader("override", str(out), "1003", "--check", "zero_queries", "--points", "6", "--reason", "x")
    assert too_many.returncode == 2 and "between 0 and 5" in too_many.stderr  # never past the check's maximum
    done = _grader("override", str(out), "1003", "--check", "zero_queries", "--points", "5",
                   "--reason", "Zero queries are excused this term")
    assert done.returncode == 0, done.stderr
    said = "above the 50 / 100 that the rubric's severity band for \u201cCausal mask structure\u201d"
    assert said in done.stderr
    with open(out / "gradebook.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["ID"] == "1003")
    assert row["Score"] == "53" and said in row["Notes"]  # applied as given: the instructor's decision
    with open(out / "changes.csv", newline="") as f:
        moved = list(csv.DictReader(f))
    assert [(r["ID"], r["Before"], r["After"], r["Change"]) for r in moved] == [("1003", "48", "53", "+5")]
    assert moved[0]["Why"].startswith("an override (") and said in moved[0]["Why"]
    summary = (out / "summary.md").read_text()
    overrides = summary.split("## Overrides", 1)[1].split("\n## ", 1)[0]
    assert "Hopper, Grace (1003): \u201cZero queries give plain averages\u201d: 0 \u2192 5 points" in overrides
    assert said in overrides
    assert "Overrides" in (out / "summary.html").read_text()
