"""The course service's test helpers: a course folder, a stand-in grader, a clock the test sets, a signed-in client."""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from starlette.testclient import TestClient

from grader.paths import INSTRUCTOR_RUBRIC
from grader.report.models import Report, Runtime
from grader.serve.tokens import INSTRUCTOR, Who, token_for

SECRET = "serve-test-secret-7d1f"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
STUDENTS = {"s1": "Ada One", "s2": "Bo Two", "s3": "Cy Three"}


def write_course(folder: Path, students: dict[str, str] = STUDENTS, **extra: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text("ID,Name,Email\n" + "".join(
        f"{k},{n},{k}@uni.example\n" for k, n in students.items()), encoding="utf-8")
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    lines = {"title": "Attention, week 3", "rubric": str(INSTRUCTOR_RUBRIC), "roster": "roster.csv",
             "secret": "{file: secret.txt}", "due": "2026-12-08T23:59:00+00:00",
             "rate_limit": "{attempts: 3, minutes: 10}", "release": "immediate", "max_upload_kb": "8",
             "store": "course.sqlite", **extra}
    path = folder / "course.yaml"
    path.write_text("".join(f"{k}: {v}\n" for k, v in lines.items()), encoding="utf-8")
    return path


def fake_grade(path: Path) -> Report:
    """A stand-in for the sandbox: a score read from the file, so each upload's report is its own."""
    text = path.read_text(encoding="utf-8")
    found = re.search(r"# score (\d+)", text)
    return Report(submission=path.name, score=float(found.group(1)) if found else 0.0, max_score=100.0, checks=[],
                  runtime=Runtime(isolation="test", wall_s=0.0,
                                  output=hashlib.sha256(text.encode()).hexdigest()[:12]))


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


def sign_in(app, who: Who) -> tuple[TestClient, str]:
    """A client signed in as `who`, and its CSRF token (read from the page, as a browser would)."""
    client = TestClient(app, follow_redirects=False)
    r = client.get("/sign-in", params={"token": token_for(SECRET, who)})
    assert r.status_code == 303
    page = client.get("/").text if who != INSTRUCTOR else client.get("/class").text
    return client, re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def student(key: str) -> Who:
    return Who("student", key)


@contextmanager
def on_loopback(app) -> Iterator[str]:
    """The app on a real uvicorn at 127.0.0.1 (a free port), its lifespan (and worker) running; the base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:  # waits for the state, not for a time
            assert thread.is_alive(), "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)
