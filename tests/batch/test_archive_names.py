"""Issue 25, item 9: names from an archive are escaped wherever they are written. A zip's member names
carry terminal escapes (ANSI, OSC, 8-bit CSI) and a bidi override; skipped.csv, gradebook.csv,
summary.html and summary.md show them as visible escapes, and none of them holds a raw one."""

from __future__ import annotations

import zipfile
from pathlib import Path

from grader.batch.models import StudentResult
from grader.batch.run import write_outputs
from grader.batch.summary import summarize
from grader.intake.collect import collect

ROOT = Path(__file__).resolve().parents[2]
STEER = "\x1b]0;owned\x07\x1b[2J\u009b31m\u202e"
RAW = ("\x1b", "\x07", "\u009b", "\u202e")


def test_steering_names_from_an_archive_are_escaped_in_every_output(tmp_path):
    export = tmp_path / "class.zip"
    with zipfile.ZipFile(export, "w") as z:  # a class export: two Canvas names make it one
        z.writestr(f"evil{STEER}_1_11_attention.py", "x = 1\n")
        z.writestr("good_2_22_attention.py", (ROOT / "reference" / "attention.py").read_text())
        z.writestr(f"notes{STEER}.txt", "hello")
        z.writestr(f"../{STEER}.py", "climbs out")
    intake = collect([export])
    results = [StudentResult(student=p.student, status="no_submission", report_name=f"r{i}")
               for i, p in enumerate(intake.students)]
    out = tmp_path / "out"
    out.mkdir()
    write_outputs(out, results, intake.skipped, summarize(results, intake.skipped))
    for name in ("skipped.csv", "gradebook.csv", "summary.html", "summary.md"):
        text = (out / name).read_text(encoding="utf-8")
        assert not any(ch in text for ch in RAW), (name, [ch for ch in RAW if ch in text])
        assert "\\x1b" in text, name  # shown, not dropped: the instructor sees what the name held


def test_gradescope_says_why_with_the_names_escaped(tmp_path):
    """run_autograder's results.json output (markdown) when nothing is gradable quotes the member names inert."""
    from grader.export.autograder import find_submission

    folder = tmp_path / "submission"
    folder.mkdir()
    with zipfile.ZipFile(folder / "hw.zip", "w") as z:
        z.writestr(f"notes{STEER}.txt", "hello")
    source, _, why = find_submission(folder, ("causal_attention", "SingleHead"))
    assert source is None and "notes" in why and "\\x1b" in why.replace("\\\\", "\\")
    assert not any(ch in why for ch in RAW), why
