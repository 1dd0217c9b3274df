"""The waiting page: a long poll that ends when the attempt is graded (or after a bounded wait), asked
by the page's one script (allowed by its hash), with a slow meta refresh for a browser without
JavaScript; and a graded report rendered once per reader, not on every view."""

from __future__ import annotations

import base64
import hashlib
import re
import threading

from starlette.testclient import TestClient
from support.serving import SECRET, fake_grade, sign_in, student

from grader.serve import app as app_mod
from grader.serve.tokens import INSTRUCTOR, token_for
from grader.serve.worker import drain, student_pages


def _submit(client, csrf, score=40):
    r = client.post("/submit", data={"csrf": csrf, "code": f"def causal_attention(q, k, v):\n    return v  # score {score}\n"})
    assert r.status_code == 303
    return r.headers["location"]


def test_the_waiting_page_long_polls_through_its_one_allowed_script(app):
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf)
    r = ada.get(where)
    (script,) = re.findall(r"<script>(.*?)</script>", r.text, re.S)
    assert f'data-wait="{where}/wait"' in r.text and "fetch(url" in script
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in r.headers["content-security-policy"]  # this script and no other
    # Without JavaScript: a meta refresh, slow, and only there (a scripted page never reloads on a timer).
    assert re.search(r'<noscript><meta http-equiv="refresh" content="5"></noscript>', r.text)
    assert 'http-equiv="refresh"' not in r.text.replace(re.search(r"<noscript>.*?</noscript>", r.text).group(0), "")
    drain(app.state.svc.store, fake_grade)
    graded = ada.get(where)
    assert "40 / 100" in graded.text
    assert "<script" not in graded.text and "refresh" not in graded.text  # the control: graded, nothing waits
    assert "script-src" not in graded.headers["content-security-policy"]


def test_a_wait_is_bounded_and_says_the_state(app):
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf)
    app.state.svc.wait_s = 0
    r = ada.get(where + "/wait")
    assert r.status_code == 200 and r.json() == {"state": "queued"}
    assert r.headers["cache-control"] == "no-store"


def test_a_wait_ends_when_a_worker_says_the_attempt_is_graded(app):
    svc = app.state.svc
    svc.wait_s = svc.recheck_s = 3600  # only the worker's word can end this wait, never the store's re-read
    with TestClient(app, follow_redirects=False) as client:  # the lifespan runs: the waiters are bound to its loop
        assert client.get("/sign-in", params={"token": token_for(SECRET, student("s1"))}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
        where = _submit(client, csrf)
        sid = int(where.rsplit("/", 1)[1])
        answer: list = []
        waiter = threading.Thread(target=lambda: answer.append(client.get(where + "/wait").json()), daemon=True)
        waiter.start()
        while sid not in svc.waiting._events:  # waits for the state (the poll has begun), not for a time
            assert waiter.is_alive()
            threading.Event().wait(0.01)
        assert drain(svc.store, fake_grade, graded=svc.graded) == 1
        waiter.join(timeout=60)
        assert answer == [{"state": "graded"}]


def test_a_graded_report_is_rendered_once_per_reader(app, monkeypatch):
    rendered = []
    real = app_mod.render_fragment
    monkeypatch.setattr(app_mod, "render_fragment", lambda report, **kw: rendered.append(kw) or real(report, **kw))
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf)
    drain(app.state.svc.store, fake_grade)  # a worker that rendered nothing
    for _ in range(3):
        assert "40 / 100" in ada.get(where).text
    assert rendered == [{"audience": "student", "published": True}]
    teacher, _ = sign_in(app, INSTRUCTOR)
    for _ in range(2):
        assert "40 / 100" in teacher.get(where).text
    assert rendered[1:] == [{"audience": "instructor", "published": True}]  # the instructor's is another page


def test_the_worker_renders_the_students_page_as_it_grades(app, monkeypatch):
    rendered = []
    monkeypatch.setattr(app_mod, "render_fragment", lambda report, **kw: rendered.append(kw))
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf, score=70)
    svc = app.state.svc
    drain(svc.store, fake_grade, present=student_pages(svc.course, svc.clock))
    assert "70 / 100" in ada.get(where).text
    assert rendered == []  # the web process rendered nothing
