"""50 students upload at once to a real uvicorn on loopback: every upload graded, none lost, none
given to another student. The p95 time from upload to report is printed, never asserted."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from support.serving import SECRET, fake_grade, on_loopback, write_course

from grader.report.models import Report
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.tokens import Who, token_for

CLASS = {f"u{i:02d}": f"Student {i:02d}" for i in range(50)}


def _student(base: str, key: str, score: int) -> tuple[str, int, float]:
    with httpx.Client(base_url=base, follow_redirects=False, timeout=120) as client:
        assert client.get("/sign-in", params={"token": token_for(SECRET, Who("student", key))}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
        t0 = time.monotonic()
        r = client.post("/submit", data={"csrf": csrf},
                        files={"file": ("attention.py", f"# {key}\nx = 1  # score {score}\n".encode())})
        assert r.status_code == 303, r.text
        where = r.headers["location"]
        while client.get(where + "/wait").json()["state"] != "graded":  # the long poll, as the page's script asks
            pass
        page = client.get(where).text
        seconds = time.monotonic() - t0
        assert f"{score} / 100" in page
        return where, score, seconds


def test_fifty_concurrent_uploads_are_all_graded_and_none_lost(tmp_path):
    course = load_course(write_course(tmp_path, CLASS, release="immediate", queue_limit="100"))
    app = make_app(course, SECRET, grade=fake_grade)  # its own worker thread, started by the lifespan
    with on_loopback(app) as base, ThreadPoolExecutor(max_workers=50) as pool:
        done = list(pool.map(lambda kv: _student(base, kv[1][0], kv[0]), enumerate(CLASS.items())))
    store = app.state.svc.store
    assert len({where for where, _, _ in done}) == 50
    for i, key in enumerate(CLASS):
        (attempt,) = store.history(key)  # one attempt each, the student's own
        assert attempt.state == "graded"
        assert Report.model_validate_json(attempt.report).score == i
    assert store.waiting() == 0
    times = sorted(s for _, _, s in done)
    print(f"\n50 concurrent uploads (stand-in grader): p95 upload-to-report {times[int(0.95 * len(times)) - 1]:.3f} s, "
          f"max {times[-1]:.3f} s")
