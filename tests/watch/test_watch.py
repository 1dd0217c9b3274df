"""`check FILE --watch`: one save, one regrade that reports only what changed.

No timing is assumed: the test waits for each expected line with a generous timeout, however
slow the machine is, and fails only if it never comes."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from grader.report.models import CheckReport, Diagnosis, Report, Runtime
from grader.watch import changes, summary_line

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ROOT / "examples" / "submission.py"
CORRECT = ROOT / "reference" / "attention.py"
PATIENCE_S = 240


def _report(score: float, statuses: dict[str, str], diagnosis: str | None = None, hint: str | None = None) -> Report:
    checks = [CheckReport(id=cid, title=cid.replace("_", " "), group="g", status=status,
                          score=1.0 if status == "passed" else 0.0, max_score=1.0, visibility="visible",
                          feedback=f"{cid} is {status}", hint=hint if status == "failed" else None)
              for cid, status in statuses.items()]
    diagnoses = [Diagnosis(id=diagnosis, title=f"{diagnosis} title", message="m", section="s")] if diagnosis else []
    return Report(submission="a.py", score=score, max_score=3, checks=checks, diagnoses=diagnoses,
                  runtime=Runtime(isolation="rlimits-only", wall_s=0.01))


def test_changes_name_only_what_changed():
    before = _report(1, {"a": "passed", "b": "failed", "c": "failed"}, diagnosis="zero_fill_mask", hint="Hint 1 of 3: x")
    after = _report(2, {"a": "passed", "b": "passed", "c": "failed"}, hint="Hint 2 of 3: y")
    assert changes(before, after) == ["  now passing: b", "  still failing: c. Hint 2 of 3: y",
                                      "  no diagnosis any more"]
    assert changes(after, after) == []
    assert "1 / 3 -> 2 / 3" in summary_line(before, after, 0.012)
    assert "still 2 / 3" in summary_line(after, after, 0.012)


def test_one_finding_shared_by_many_checks_is_said_once():
    """Found by a user: a save that broke the syntax printed fifteen identical 'now failing' lines."""
    ids = ["a", "b", "c", "d"]
    before = _report(4, dict.fromkeys(ids, "passed"))
    after = _report(0, dict.fromkeys(ids, "error"))
    for c in after.checks:
        c.feedback = "The submission could not be run: SyntaxError: expected ':'"
    assert changes(before, after) == ["  now failing: 4 checks (a, b, c, ...): The submission could not be run: "
                                      "SyntaxError: expected ':'"]
    two = _report(2, {"a": "error", "b": "error", "c": "passed", "d": "passed"})  # two are still listed each
    assert len(changes(before, two)) == 2


def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _wait_for(lines: queue.Queue, text: str, seen: list[str]) -> None:
    while True:
        try:
            line = lines.get(timeout=PATIENCE_S)
        except queue.Empty:
            raise AssertionError(f"no {text!r} within {PATIENCE_S} s; output so far:\n{''.join(seen)}") from None
        if line is None:
            raise AssertionError(f"the watcher ended before {text!r}; output:\n{''.join(seen)}")
        seen.append(line)
        if text in line:
            return


def test_a_save_regrades_and_prints_what_changed(tmp_path):
    sub = tmp_path / "attention.py"
    shutil.copy(BUGGY, sub)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADER_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1"}
    # Started with SIGINT ignored, as a shell without job control starts a background job (`make test &`, a CI
    # step): the ignoring is inherited, and in two full runs the watcher never stopped (returncode -9 below).
    proc = subprocess.Popen([sys.executable, "-m", "grader", "check", str(sub), "--watch"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        _wait_for(lines, "watching attention.py", seen)
        assert any(line.startswith("Diagnosis: ") for line in seen)  # the whole first report
        first = len(seen)
        # Saved the way editors do: a new file renamed over the old one.
        (tmp_path / "attention.py.tmp").write_bytes(CORRECT.read_bytes())
        os.replace(tmp_path / "attention.py.tmp", sub)
        _wait_for(lines, "every check passes", seen)
        regrade = "".join(seen[first:])
        assert re.search(r"-> (\S+) / \1 ", regrade) and "now passing: Worked example" in regrade  # full marks
        assert "no diagnosis any more" in regrade
        assert "Attention check:" not in regrade  # only the changes, not the whole report again
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


def test_a_new_bug_is_named_even_under_the_same_headline():
    """Issue 19: zero fill -> triu under an unchanged first diagnosis printed no new bug name."""
    before = _report(1, {"a": "failed"}, diagnosis="not_implemented")
    before.diagnoses.append(Diagnosis(id="zero_fill_mask", title="Zero fill", message="row [1/3]", section="s"))
    after = _report(1, {"a": "failed"}, diagnosis="not_implemented")
    after.diagnoses.append(Diagnosis(id="wrong_mask_direction", title="Upper triangle", message="row [0, 0, 1]",
                                     section="s"))
    said = changes(before, after)
    assert "  diagnosis: Upper triangle. row [0, 0, 1] (reread: s)" in said
    assert "  no longer found: Zero fill" in said


def test_every_save_prints_a_line_even_when_nothing_changed(tmp_path, monkeypatch):
    """Issue 19: an identical save printed nothing; a tick of the watcher's clock (no save) prints nothing."""
    import watchfiles

    from grader.watch import watch

    sub = tmp_path / "attention.py"
    sub.write_text("x = 1\n")
    monkeypatch.setattr(watchfiles, "watch", lambda *a, **k: iter([{(watchfiles.Change.modified, str(sub))}, set()]))
    said: list[str] = []
    watch(sub, grade=lambda p: _report(1, {"a": "failed"}), show=lambda r: None, say=said.append)
    after_start = said[2:]
    assert len(after_start) == 1 and "saved, nothing changed: still 1 / 3" in after_start[0], said
