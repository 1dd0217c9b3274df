"""The release policy and the due date: before release a student sees that the attempt is graded,
not the grade; after the due date, the grade, and uploads are closed."""

from __future__ import annotations

from datetime import timedelta

from support.serving import SECRET, fake_grade, sign_in, student, write_course

from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.tokens import INSTRUCTOR
from grader.serve.worker import drain


def test_after_due_holds_the_grade_until_the_due_date(tmp_path, clock):
    course = load_course(write_course(tmp_path, release="after_due", max_attempts="2"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    ada, csrf = sign_in(app, student("s1"))
    where = ada.post("/submit", data={"csrf": csrf, "code": "x = 1  # score 40\n"}).headers["location"]
    drain(app.state.svc.store, fake_grade)
    assert "score released later" in ada.get("/").text
    assert "Attempts left: 1" in ada.get("/").text
    teacher, _ = sign_in(app, INSTRUCTOR)
    assert "40 / 100" in teacher.get("/class").text  # the instructor sees it at once

    clock.now = course.due + timedelta(minutes=1)
    assert "40 / 100" in ada.get("/").text and "score released later" not in ada.get("/").text
    assert "40" in ada.get(where).text
    r = ada.post("/submit", data={"csrf": csrf, "code": "x = 2\n"})
    assert r.status_code == 403 and "submissions are closed" in r.text  # closed: no retry helps (429 is the rate limit's)


def test_max_attempts_is_enforced(tmp_path, clock):
    course = load_course(write_course(tmp_path, max_attempts="1", rate_limit="null"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    ada, csrf = sign_in(app, student("s1"))
    assert ada.post("/submit", data={"csrf": csrf, "code": "x = 1\n"}).status_code == 303
    r = ada.post("/submit", data={"csrf": csrf, "code": "x = 2\n"})
    assert r.status_code == 403 and "all 1 attempts" in r.text
