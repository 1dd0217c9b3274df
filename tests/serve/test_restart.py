"""A worker (or the whole server and its workers) killed with SIGKILL mid-queue: on restart every
queued submission is graded exactly once; a claim goes back to the queue only when its worker's process
is gone, never while it lives; the workers die with the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.serving import NOW, fake_grade

from grader.report.models import Report
from grader.serve.pool import Workers
from grader.serve.store import CourseStore, ProcessIdentity
from grader.serve.worker import drain

ROOT = Path(__file__).resolve().parents[2]

# The worker process: grades as the service does, logs each finished grading, and hangs in the
# middle of the fourth, holding its claim, until it is killed.
_WORKER = """
import sys, time
from pathlib import Path
from grader.report.models import Report
from grader.serve.pool import Workers
from grader.serve.store import CourseStore, ProcessIdentity
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



def _each_graded_once(log, store, ids) -> None:
    assert sorted(log.read_text().splitlines()) == sorted(f"# upload {i}" for i in range(len(ids)))  # each once
    for i, sid in enumerate(ids):
        s = store.get(sid)
        assert s.state == "graded"
        assert Report.model_validate_json(s.report).score == i  # each its own report

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

    _each_graded_once(log, store, ids)


def test_a_worker_whose_claim_was_taken_back_writes_nothing(tmp_path):
    store = CourseStore(tmp_path / "course.sqlite")
    sid = store.enqueue("s1", "attention.py", b"x = 1  # score 5\n", NOW, limit=10)
    assert store.claim(worker=1)[0] == sid  # worker 1 never registered a process: nothing holds its claim
    assert store.requeue_abandoned() == 1  # so it goes back
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


def _sleeper() -> subprocess.Popen:
    """A process that lives until killed: it stands for a worker."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])


def test_only_a_dead_workers_claim_goes_back_to_the_queue(tmp_path):
    store = CourseStore(tmp_path / "course.sqlite")
    live, dead = _sleeper(), _sleeper()
    try:
        a = store.enqueue("s1", "attention.py", b"x = 1\n", NOW, limit=10)
        b = store.enqueue("s2", "attention.py", b"x = 2\n", NOW, limit=10)
        store.register_worker(1, ProcessIdentity.of(live.pid))
        store.register_worker(2, ProcessIdentity.of(dead.pid))
        assert store.claim(worker=1)[0] == a and store.claim(worker=2)[0] == b
        assert store.requeue_abandoned() == 0  # both alive: nothing moves
        dead.kill()
        dead.wait()
        assert store.requeue_abandoned() == 1
        assert store.get(a).state == "claimed" and store.get(b).state == "queued"
        # The live worker's pid under another start time is another process (a reused pid): its claim is free.
        assert store.requeue_abandoned(alive=lambda who: who == ProcessIdentity.of(live.pid)) == 0
        impostor = ProcessIdentity(live.pid, str(int(ProcessIdentity.of(live.pid).started) + 1))
        assert store.requeue_abandoned(alive=lambda who: who == impostor) == 1
        assert store.get(a).state == "queued"
    finally:  # the test leaves nothing running, even when it fails
        for p in (live, dead):
            p.kill()
            p.wait()


# A server with two worker processes: the one that claims upload 3 hangs there holding its claim,
# the other grades the rest; each worker's pid is written down.
_SERVER = """
import os, sys, time
from pathlib import Path
from grader.serve.pool import Workers
from support.serving import fake_grade

db, log, stuck, pids = (Path(a) for a in sys.argv[1:5])

def grade(path):
    text = path.read_text()
    if text.startswith("# upload 3\\n"):
        stuck.write_text(str(os.getpid()))
        time.sleep(3600)
    report = fake_grade(path)
    with log.open("a") as f:
        f.write(text.splitlines()[0] + "\\n")
    return report

workers = Workers(db, lambda: (grade, None), 2)
pids.write_text(" ".join(str(p) for p in workers.sockets))
workers.wake()
time.sleep(3600)
"""


def _gone(pids: list[int]) -> bool:
    return all(ProcessIdentity.of(p) is None for p in pids)


def test_a_killed_server_takes_its_workers_with_it_and_the_restart_grades_each_once(tmp_path):
    db, log, stuck, pids_file = tmp_path / "course.sqlite", tmp_path / "graded.log", tmp_path / "stuck", tmp_path / "pids"
    log.write_text("")
    store = CourseStore(db)
    ids = [store.enqueue(f"s{i % 3}", "attention.py", f"# upload {i}\nx = 1  # score {i}\n".encode(), NOW, limit=100)
           for i in range(8)]
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(db), str(log), str(stuck), str(pids_file)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "tests")})
    try:
        while not (stuck.exists() and sum(store.get(i).state == "graded" for i in ids) == 7):  # waits for the state
            assert server.poll() is None, "the server exited before its workers got there"
            time.sleep(0.01)
        workers = [int(p) for p in pids_file.read_text().split()]
        assert len(workers) == 2 and int(stuck.read_text()) in workers
        # The other worker, idle, looks for abandoned claims: the hung one's claim is alive, so it stays.
        assert store.requeue_abandoned() == 0
        assert [s.id for s in (store.get(i) for i in ids) if s.state == "claimed"] == [ids[3]]
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    for _ in range(6000):  # polls for the state; nothing is asserted about time
        if _gone(workers):
            break
        time.sleep(0.01)
    outlived = [p for p in workers if ProcessIdentity.of(p) is not None]
    for pid in outlived:  # the test leaves nothing running, even when it fails
        os.kill(pid, signal.SIGKILL)
    assert not outlived, "a worker outlived the server that was killed"

    restarted = []  # the restart: two workers again; the dead one's claim is re-queued and graded, once
    again = Workers(db, lambda: (_logging(log), None), 2)
    try:
        again.wake()
        while store.waiting():
            assert len(again.sockets) == 2, "a worker of the restart ended"
            time.sleep(0.01)
        restarted = [int(p) for p in again.sockets]
    finally:
        again.close()
    assert _gone(restarted)  # closed: none left behind
    _each_graded_once(log, store, ids)


def test_a_submission_whose_grading_keeps_killing_workers_is_given_up_as_a_grader_error(tmp_path):
    from grader.serve.store import MAX_ABANDONED

    store = CourseStore(tmp_path / "course.sqlite")
    sid = store.enqueue("s1", "attention.py", b"x = 1  # crashes its worker\n", NOW, limit=10)
    told = []
    for worker in range(1, MAX_ABANDONED + 1):  # each worker claims it and dies (none is registered as alive)
        assert store.claim(worker=worker)[0] == sid
        assert store.requeue_abandoned(given_up=told.append) == 1
        assert store.get(sid).state == ("queued" if worker < MAX_ABANDONED else "graded")
    assert told == [sid]  # whoever waits on it hears once, when it is given up
    assert store.claim(worker=99) is None  # not re-queued forever
    report = Report.model_validate_json(store.get(sid).report)
    assert report.status == "grader_error" and report.submission == "attention.py"
    assert f"{MAX_ABANDONED} times" in report.error and "ask your instructor" in report.error
    other = store.enqueue("s2", "attention.py", b"x = 2\n", NOW, limit=10)  # the next upload is graded as usual
    assert drain(store, fake_grade) == 1 and store.get(other).state == "graded"
