"""The service's grading processes: uploads over HTTP are graded in the workers, not in the web
process; a waiting student hears the worker's word at once; a worker that ends has its claim graded by
another; the workers leave when the server stops."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import psutil
from support.serving import SECRET, fake_grade, on_loopback, write_course

from grader.report.models import Report
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.pool import Workers
from grader.serve.store import ProcessIdentity
from grader.serve.tokens import INSTRUCTOR, Who, token_for

CLASS = {f"p{i}": f"Student {i}" for i in range(6)}


def _in_this_process(path: Path) -> Report:
    """fake_grade, with the pid of the process that graded written in the report."""
    report = fake_grade(path)
    return report.model_copy(update={"runtime": report.runtime.model_copy(update={"output": f"pid {os.getpid()}"})})


def _dies_once(marker: Path):
    def grade(path: Path) -> Report:
        if "# die" in path.read_text() and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker ends holding its claim
        return _in_this_process(path)
    return grade


def _upload_and_wait(base: str, key: str, code: str) -> Report:
    with httpx.Client(base_url=base, follow_redirects=False, timeout=120) as client:
        assert client.get("/sign-in", params={"token": token_for(SECRET, Who("student", key))}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
        where = client.post("/submit", data={"csrf": csrf, "code": code}).headers["location"]
        assert client.get(where + "/wait").json() == {"state": "graded"}  # one wait, ended by the worker's word
        return where


def _serving(tmp_path, grade, count=2):
    course = load_course(write_course(tmp_path, CLASS, release="immediate", rate_limit="null"))
    workers = Workers(course.store, lambda: (grade, None), count)  # forked before uvicorn's thread starts
    app = make_app(course, SECRET, grade=None, workers=workers)
    app.state.svc.wait_s = app.state.svc.recheck_s = 3600  # no re-read of the store ends a wait: only a word
    return app, workers


def test_uploads_are_graded_in_the_worker_processes(tmp_path):
    app, workers = _serving(tmp_path, _in_this_process)
    pids = list(workers.sockets)
    with on_loopback(app) as base:
        for i, key in enumerate(CLASS):
            _upload_and_wait(base, key, f"x = 1  # score {i}\n")
    store = app.state.svc.store
    for i, key in enumerate(CLASS):
        (attempt,) = store.history(key)
        report = Report.model_validate_json(attempt.report)
        assert report.score == i
        assert report.runtime.output in {f"pid {p}" for p in pids} and report.runtime.output != f"pid {os.getpid()}"
    assert all(ProcessIdentity.of(p) is None for p in pids)  # the server stopped: its workers left with it


def test_a_worker_that_ends_has_its_claim_graded_by_another(tmp_path):
    marker = tmp_path / "died"
    app, workers = _serving(tmp_path, _dies_once(marker))
    with on_loopback(app) as base:
        _upload_and_wait(base, "p0", "x = 1  # score 9\n# die\n")
        assert int(marker.read_text()) not in workers.sockets  # another worker graded the dead one's claim
        (attempt,) = app.state.svc.store.history("p0")
        assert Report.model_validate_json(attempt.report).score == 9
        assert Report.model_validate_json(attempt.report).runtime.output != f"pid {marker.read_text()}"
        _upload_and_wait(base, "p1", "x = 1  # score 4\n")  # and it goes on grading


def _tree(root: int) -> set[int]:
    """`root` and every descendant (psutil, which ipykernel in the dev extras already brings)."""
    try:
        return {root, *(p.pid for p in psutil.Process(root).children(recursive=True))}
    except psutil.NoSuchProcess:
        return {root}


def test_a_served_course_killed_with_sigkill_leaves_no_process_behind(tmp_path):
    """`grader serve` as an instructor starts it (workers, their sandboxes' servers, the seed), then SIGKILL."""
    import signal
    import socket
    import subprocess
    import sys
    import time

    from support.corpora import ROOT

    path = write_course(tmp_path, CLASS, workers="2")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", str(path), "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:  # waits for the state (serving, its workers' sandboxes warm), not for a time
            assert server.poll() is None, "the server did not start"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 401:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        everyone = _tree(server.pid) - {server.pid}
        while len(everyone) < 3:  # the seed and two workers at least
            assert server.poll() is None
            time.sleep(0.05)
            everyone = _tree(server.pid) - {server.pid}
        identities = [i for i in (ProcessIdentity.of(p) for p in everyone) if i is not None]
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    for _ in range(6000):  # polls for the state; nothing is asserted about time
        if not any(i.alive() for i in identities):
            break
        time.sleep(0.01)
    left = [i.pid for i in identities if i.alive()]
    for pid in left:  # the test leaves nothing running, even when it fails
        os.kill(pid, signal.SIGKILL)
    assert not left, "a process of the killed server outlived it"


def _until(condition, what: str):
    """Polls for a state (bounded, generous); nothing is asserted about time."""
    import time

    for _ in range(12000):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"never: {what}")


def test_a_worker_that_dies_is_replaced(tmp_path):
    marker = tmp_path / "died"
    app, workers = _serving(tmp_path, _dies_once(marker), count=1)  # the only worker: nobody else would grade
    first = set(workers.sockets)
    with on_loopback(app) as base:
        where = _upload_and_wait(base, "p0", "x = 1  # score 9\n# die\n")
        assert int(marker.read_text()) in first
        _until(lambda: len(workers.sockets) == 1, "one worker again")
        (attempt,) = app.state.svc.store.history("p0")
        graded_by = Report.model_validate_json(attempt.report).runtime.output
        assert graded_by not in {f"pid {p}" for p in first} | {f"pid {os.getpid()}"}  # by the replacement
        assert where
        _upload_and_wait(base, "p1", "x = 1  # score 4\n")  # and it goes on grading
        replacements = set(workers.sockets)
    assert all(ProcessIdentity.of(p) is None for p in replacements)  # it left with the server too


def _always_dies(path: Path) -> Report:
    if "# poison" in path.read_text():
        os._exit(1)
    return _in_this_process(path)


def test_a_file_that_kills_every_worker_is_told_to_its_student_as_a_grader_error(tmp_path):
    from grader.serve.store import MAX_ABANDONED

    app, workers = _serving(tmp_path, _always_dies, count=2)
    with on_loopback(app) as base:
        with httpx.Client(base_url=base, follow_redirects=False, timeout=120) as client:
            assert client.get("/sign-in", params={"token": token_for(SECRET, Who("student", "p0"))}).status_code == 303
            csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
            where = client.post("/submit", data={"csrf": csrf, "code": "x = 1  # poison\n"}).headers["location"]
            assert client.get(where + "/wait").json() == {"state": "graded"}  # the word comes when it is given up
            (attempt,) = app.state.svc.store.history("p0")
            report = Report.model_validate_json(attempt.report)
            assert report.status == "grader_error" and f"{MAX_ABANDONED} times" in report.error
            assert "the grader failed on this file" in client.get("/").text
            page = client.get(where).text
            assert "Ask your instructor" in page and f"{MAX_ABANDONED} times" not in page  # plain, not the grader's own
        with httpx.Client(base_url=base, follow_redirects=False, timeout=120) as teacher:
            assert teacher.get("/sign-in", params={"token": token_for(SECRET, INSTRUCTOR)}).status_code == 303
            assert f"{MAX_ABANDONED} times" in teacher.get(where).text  # the instructor reads why
        _upload_and_wait(base, "p1", "x = 1  # score 4\n")  # the workers were replaced and go on grading
