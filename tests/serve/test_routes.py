"""Who may see what: every route refused without a session, another student's attempt never shown,
CSRF, the rate limit and the upload cap; nothing secret in any page."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from support.serving import SECRET, fake_grade, sign_in, student

from grader.serve.tokens import INSTRUCTOR, Who, token_for
from grader.serve.worker import drain

PAGES = ["/", "/submissions/1", "/submissions/1/wait", "/class", "/class/s1", "/exports/gradebook", "/quiz", "/cards"]
POSTS = ["/submit", "/sign-out", "/class/s1/override", "/release",
         "/quiz/answer", "/quiz/follow-up", "/quiz/next", "/quiz/restart", "/cards/rate"]
# The quiz and cards without sign-in, for self-learners where the course file allows: tests/serve/test_learn.py.  # a student's refusal: tests/serve/test_instructor.py


def _submit(client, csrf, code="def causal_attention(q, k, v):\n    return v  # score 40\n", **files):
    return client.post("/submit", data={"csrf": csrf, "code": code} if not files else {"csrf": csrf}, files=files or None)


def _graded(app) -> None:
    drain(app.state.svc.store, fake_grade)


@pytest.mark.parametrize("path", PAGES)
def test_no_session_is_refused_on_every_page(app, path):
    r = TestClient(app, follow_redirects=False).get(path)
    assert r.status_code == 401


@pytest.mark.parametrize("path", POSTS)
def test_no_session_is_refused_on_every_post(app, path):
    r = TestClient(app, follow_redirects=False).post(path, data={"csrf": "x", "code": "x = 1"})
    assert r.status_code == 401


def test_a_wrong_or_forged_token_does_not_sign_in(app):
    client = TestClient(app, follow_redirects=False)
    assert client.get("/sign-in", params={"token": "nope"}).status_code == 403
    other = token_for("another-secret", student("s1"))  # a token from another course's secret
    assert client.get("/sign-in", params={"token": other}).status_code == 403
    assert client.get("/sign-in").status_code == 403
    assert client.get("/").status_code == 401


def test_a_student_sees_their_own_report_and_history(app):
    client, csrf = sign_in(app, student("s1"))
    r = _submit(client, csrf)
    assert r.status_code == 303
    where = r.headers["location"]
    assert "reloads itself" in client.get(where).text  # queued: not graded yet
    _graded(app)
    page = client.get(where).text
    assert "40 / 100" in page and "Attention check: attention.py" in page
    assert where in client.get("/").text  # the attempt is in the history


def test_a_student_never_reads_another_students_attempt(app):
    ada, ada_csrf = sign_in(app, student("s1"))
    bo, bo_csrf = sign_in(app, student("s2"))
    mine = _submit(ada, ada_csrf).headers["location"]
    _graded(app)
    assert ada.get(mine).status_code == 200
    r = bo.get(mine)
    assert r.status_code == 404 and "40 / 100" not in r.text
    assert mine not in bo.get("/").text  # nor in their history
    for path in ("/class", "/class/s1", "/class/s2", "/exports/gradebook"):  # nor the instructor's pages, even their own history there
        assert bo.get(path).status_code == 403
    assert bo.get("/submissions/999").status_code == 404


def test_a_student_never_waits_on_another_students_attempt(app):
    ada, ada_csrf = sign_in(app, student("s1"))
    bo, _ = sign_in(app, student("s2"))
    mine = _submit(ada, ada_csrf).headers["location"]
    app.state.svc.wait_s = 0  # nothing graded here: each wait answers at once
    assert ada.get(mine + "/wait").json() == {"state": "queued"}  # the control: the owner may
    theirs = bo.get(mine + "/wait")
    assert theirs.status_code == 404 and "state" not in theirs.json()  # not even whether it is graded
    assert theirs.json() == bo.get("/submissions/999/wait").json()  # the same as an attempt that does not exist
    _graded(app)
    assert ada.get(mine + "/wait").json() == {"state": "graded"}
    assert bo.get(mine + "/wait").status_code == 404
    teacher, _ = sign_in(app, INSTRUCTOR)
    assert teacher.get(mine + "/wait").json() == {"state": "graded"}


def test_the_instructor_sees_the_class_and_each_history(app):
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf).headers["location"]
    _graded(app)
    teacher, teacher_csrf = sign_in(app, INSTRUCTOR)
    view = teacher.get("/class").text
    assert "Ada One" in view and "40 / 100" in view and "no submission" in view
    assert where in teacher.get("/class/s1").text
    assert teacher.get(where).status_code == 200
    assert teacher.get("/class/nobody").status_code == 404
    assert _submit(teacher, teacher_csrf).status_code == 403  # the instructor does not submit as anyone


def test_a_post_without_the_sessions_csrf_token_is_refused(app):
    ada, csrf = sign_in(app, student("s1"))
    _, bo_csrf = sign_in(app, student("s2"))
    assert _submit(ada, "").status_code == 403
    assert _submit(ada, bo_csrf).status_code == 403  # another session's token is no token
    assert ada.post("/submit", data={"code": "x = 1"}).status_code == 403
    assert app.state.svc.store.count("s1") == 0
    assert _submit(ada, csrf).status_code == 303  # the control: with it, accepted


def test_the_rate_limit_says_when_the_next_attempt_is_allowed(app, clock):
    ada, csrf = sign_in(app, student("s1"))
    for _ in range(3):
        assert _submit(ada, csrf).status_code == 303
    r = _submit(ada, csrf)
    assert r.status_code == 429
    assert "next attempt is allowed at 2026-12-01T12:10:00+00:00" in r.text
    assert "next attempt is allowed" in ada.get("/").text
    bo, bo_csrf = sign_in(app, student("s2"))
    assert _submit(bo, bo_csrf).status_code == 303  # the limit is each student's own
    clock.advance(10.01)
    assert _submit(ada, csrf).status_code == 303
    assert app.state.svc.store.count("s1") == 4


def test_an_upload_over_the_cap_is_refused_and_nothing_is_queued(app):
    ada, csrf = sign_in(app, student("s1"))
    big = b"x = 1\n" * 2000  # 12 KB against the course's 8 KB
    r = _submit(ada, csrf, file=("attention.py", big, "text/x-python"))
    assert r.status_code == 413
    r = _submit(ada, csrf, code="# " + "x" * 9000)
    assert r.status_code == 413
    assert app.state.svc.store.count("s1") == 0
    ok = _submit(ada, csrf, file=("attention.py", b"x = 1  # score 7\n", "text/x-python"))
    assert ok.status_code == 303
    _graded(app)
    assert "7 / 100" in ada.get(ok.headers["location"]).text


def test_an_upload_that_is_not_python_is_refused(app):
    ada, csrf = sign_in(app, student("s1"))
    assert _submit(ada, csrf, file=("notes.pdf", b"%PDF-1.4", "application/pdf")).status_code == 400
    assert _submit(ada, csrf, code="   ").status_code == 400


def test_no_secret_or_token_appears_in_any_page(app):
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf).headers["location"]
    _graded(app)
    teacher, _ = sign_in(app, INSTRUCTOR)
    pages = [ada.get(p).text for p in ("/", where)] + [teacher.get(p).text for p in ("/class", "/class/s1", where)]
    pages += [TestClient(app).get(p).text for p in PAGES]
    tokens = [token_for(SECRET, w) for w in (INSTRUCTOR, *(Who("student", k) for k in ("s1", "s2", "s3")))]
    for page in pages:
        assert SECRET not in page
        assert not any(t in page for t in tokens)


def test_a_signed_out_session_is_refused(app):
    ada, csrf = sign_in(app, student("s1"))
    assert ada.post("/sign-out", data={"csrf": csrf}).status_code == 303
    ada.cookies.clear()
    assert ada.get("/").status_code == 401


# Open by design, each tested in tests/serve/test_lti.py: the LMS's login and launch carry no session
# (the signed id_token and the single-use state stand for one), and the tool's public key is public.
PUBLIC = {"/sign-in", "/lti/login", "/lti/launch", "/lti/jwks"}


def test_every_route_is_either_refused_without_a_session_above_or_public_by_design(app):
    routes = {r.path.replace("{id:int}", "1").replace("{student}", "s1").replace("{fmt}", "gradebook")
              for r in app.routes}
    assert routes == set(PAGES) | set(POSTS) | PUBLIC, "a new route needs its authorisation test"
