"""A worker killed with SIGKILL mid-queue: on restart every queued submission is graded exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.serving import NOW, fake_grade

from grader.report.models import Report
from grader.serve.store import CourseStore
from grader.serve.worker import drain

ROOT = Path(__file__).resolve().parents[2]

# The worker process: grades as the service does, logs each finished grading, and hangs in the
# middle of the fourth, holding its claim, until it is killed.
_WORKER = """
import sys, time
from pathlib import Path
from grader.report.models import Report
from grader.serve.store import CourseStore
from grader.serve.worker import drain
from support.serving import fake_grade

store, log, stuck = CourseStore(Path(sys.argv[1])), Path(sys.argv[2]), Path(sys.argv[3])

def grade(path):
    text = path.read_text()
    if len(log.read_text().splitlines()) == 3:
        stuck.write_text(text)
        time.sleep(3600)
    report = fake_grade(path)
    with log.open("a") as f:
        f.write(text.splitlines()[0] + "\\n")
    return report

drain(store, grade)
"""


def _logging(log: Path):
    def grade(path: Path):
        report = fake_grade(path)
        with log.open("a") as f:
            f.write(path.read_text().splitlines()[0] + "\n")
        return report
    return grade


def test_a_killed_worker_leaves_nothing_lost_and_nothing_graded_twice(tmp_path):
    db, log, stuck = tmp_path / "course.sqlite", tmp_path / "graded.log", tmp_path / "stuck"
    log.write_text("")
    store = CourseStore(db)
    ids = [store.enqueue(f"s{i % 3}", "attention.py", f"# upload {i}\nx = 1  # score {i}\n".encode(), NOW, limit=100)
           for i in range(8)]
    child = subprocess.Popen([sys.executable, "-c", _WORKER, str(db), str(log), str(stuck)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "tests")})
    try:
        while not stuck.exists():  # waits for the state, not for a time
            assert child.poll() is None, "the worker exited before it got stuck"
            time.sleep(0.01)  # polls for the state; nothing is asserted about time
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    held = [s for s in (store.get(i) for i in ids) if s.state == "claimed"]
    assert [h.id for h in held] == [ids[3]]  # the dead worker's claim is still there
    assert len(log.read_text().splitlines()) == 3

    assert drain(CourseStore(db), _logging(log)) == 5  # the restart: the claim re-queued, the rest graded

    lines = log.read_text().splitlines()
    assert sorted(lines) == sorted(f"# upload {i}" for i in range(8))  # each exactly once
    for i, sid in enumerate(ids):
        s = store.get(sid)
        assert s.state == "graded"
        assert Report.model_validate_json(s.report).score == i  # each its own report


def test_a_worker_whose_claim_was_taken_back_writes_nothing(tmp_path):
    store = CourseStore(tmp_path / "course.sqlite")
    sid = store.enqueue("s1", "attention.py", b"x = 1  # score 5\n", NOW, limit=10)
    assert store.claim(worker=1)[0] == sid
    assert store.requeue_abandoned(alive=2) == 1  # a new worker started: the old claim goes back
    assert store.claim(worker=2)[0] == sid
    assert not store.finish(sid, 1, "{}")  # the old worker, late, cannot write its report
    assert store.finish(sid, 2, "{}")  # the claim's holder can
    assert store.get(sid).state == "graded"


def test_the_queue_is_bounded(tmp_path):
    import pytest

    from grader.serve.store import QueueFull

    store = CourseStore(tmp_path / "course.sqlite")
    for _ in range(3):
        store.enqueue("s1", "attention.py", b"x = 1\n", NOW, limit=3)
    with pytest.raises(QueueFull):
        store.enqueue("s2", "attention.py", b"x = 1\n", NOW, limit=3)
    drain(store, fake_grade)
    store.enqueue("s2", "attention.py", b"x = 1\n", NOW, limit=3)  # graded ones no longer count
