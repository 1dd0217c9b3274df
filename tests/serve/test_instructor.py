"""The instructor's actions in the browser: overrides with reasons (the CLI's `Override` records, its
validation), the gradebook exports in each LMS's import format, and releasing grades by hand."""

from __future__ import annotations

import csv
import hashlib
import html
import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support.serving import SECRET, fake_grade, sign_in, student, write_course

from grader.batch.models import Override
from grader.report.models import CheckReport, Report, Runtime
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.tokens import INSTRUCTOR
from grader.serve.worker import drain

REASON = "regrade request: the mask is right, the test's tolerance was too tight"


def banded_grade(path: Path) -> Report:
    """A report whose failing check sets a severity band of 50%: its total is capped at 50."""
    checks = [CheckReport(id="masking", title="Future positions hidden", status="failed", score=0, max_score=50,
                          feedback="leaks", ceiling=0.5),
              CheckReport(id="shapes", title="Shapes", status="passed", score=50, max_score=50, feedback="ok")]
    return Report(submission=path.name, score=50.0, max_score=100.0, checks=checks,
                  runtime=Runtime(isolation="test", wall_s=0.0))


def _upload(client: TestClient, csrf: str, code: str) -> int:
    r = client.post("/submit", data={"csrf": csrf, "code": code})
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def _override(client: TestClient, csrf: str, student_key: str, submission: int, points: str, *, check: str = "",
              reason: str = REASON):
    return client.post(f"/class/{student_key}/override", data={
        "csrf": csrf, "submission": str(submission), "check": check, "points": points, "reason": reason})


def _two_attempts(app, grade=fake_grade) -> tuple[TestClient, str, int, int]:
    ada, csrf = sign_in(app, student("s1"))
    first = _upload(ada, csrf, "x = 1  # score 40\n")
    second = _upload(ada, csrf, "x = 2  # score 60\n")
    drain(app.state.svc.store, grade)
    return ada, csrf, first, second


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_an_override_of_the_total_is_the_clis_record_kept_with_who_when_and_why(app, clock):
    ada, _, first, second = _two_attempts(app)
    teacher, csrf = sign_in(app, INSTRUCTOR)
    r = _override(teacher, csrf, "s1", second, "75")
    assert r.status_code == 303 and r.headers["location"].startswith("/class/s1")
    (kept,) = app.state.svc.store.overrides("s1")
    source = app.state.svc.store.source(second)
    assert kept.override == Override(student="s1", source_sha256=hashlib.sha256(source).hexdigest(), points=75.0,
                                     reason=REASON)
    assert kept.by == "instructor" and kept.at == clock.now
    history = _text(teacher.get("/class/s1").text)
    assert "75 / 100" in history and REASON in history and "60 / 100" in history  # the override, and the grade it replaced
    assert "40 / 100" in history  # the first attempt is not touched
    assert "75 / 100" in _text(teacher.get("/class").text)  # the class view counts it
    page = _text(ada.get(f"/submissions/{second}").text)  # the student reads it with its reason (released: immediate)
    assert "Total set to 75 (it was 60)" in page and REASON in page


def test_an_override_is_refused_as_the_cli_refuses_it_and_nothing_is_kept(app):
    _, _, first, second = _two_attempts(app, banded_grade)
    teacher, csrf = sign_in(app, INSTRUCTOR)
    for points, check, reason, says in [("101", "", REASON, "between 0 and 100"),
                                        ("-1", "", REASON, "between 0 and 100"),
                                        ("51", "masking", REASON, "between 0 and 50"),
                                        ("10", "nosuch", REASON, "no check 'nosuch'"),
                                        ("10", "", "   ", "must say why"),
                                        ("ten", "", REASON, "a number")]:
        r = _override(teacher, csrf, "s1", second, points, check=check, reason=reason)
        assert r.status_code == 400 and says in _text(r.text), (points, check, r.text)
        assert "--" not in _text(r.text)  # the browser has no command-line flags to name
    assert app.state.svc.store.overrides("s1") == []
    assert _override(teacher, csrf, "s1", 999, "10").status_code == 404
    bo, bo_csrf = sign_in(app, student("s2"))
    theirs = _upload(bo, bo_csrf, "x = 3  # score 20\n")
    assert _override(teacher, csrf, "s1", theirs, "10").status_code == 404  # s2's attempt is no attempt of s1's
    assert _override(teacher, csrf, "s2", theirs, "10").status_code == 400  # queued: nothing graded to adjust
    assert _override(teacher, "", "s1", second, "10").status_code == 403  # CSRF
    assert app.state.svc.store.overrides("s1") == [] and app.state.svc.store.overrides("s2") == []


def test_a_checks_points_above_its_severity_band_are_applied_and_said(app):
    _, _, _, second = _two_attempts(app, banded_grade)
    teacher, csrf = sign_in(app, INSTRUCTOR)
    assert _override(teacher, csrf, "s1", second, "40", check="masking").status_code == 303
    history = _text(teacher.get("/class/s1").text)
    assert "90 / 100" in history  # applied as given: 50 - 0 + 40
    assert "above the 50 / 100 that the rubric's severity band" in history


@pytest.mark.parametrize("who", [None, "s1", "s2"])
def test_a_student_or_nobody_never_reaches_the_instructors_actions(app, who):
    _, _, _, second = _two_attempts(app)
    if who is None:
        client, csrf = TestClient(app, follow_redirects=False), "x"
    else:
        client, csrf = sign_in(app, student(who))
    want = 401 if who is None else 403
    assert _override(client, csrf, "s1", second, "100").status_code == want
    assert client.post("/release", data={"csrf": csrf}).status_code == want
    for fmt in ("gradebook", "canvas", "moodle"):
        r = client.get(f"/exports/{fmt}")
        assert r.status_code == want and "60" not in r.text.replace("60em", "")
    assert app.state.svc.store.overrides("s1") == []
    teacher, teacher_csrf = sign_in(app, INSTRUCTOR)  # the control: the instructor may
    assert _override(teacher, teacher_csrf, "s1", second, "100").status_code == 303
    assert teacher.get("/exports/gradebook").status_code == 200


TWINS = {"101": "Wei Li", "102": "Wei Li", "103": "Cy Three"}


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_the_exports_put_each_students_counted_score_on_their_own_row(tmp_path, clock):
    course = load_course(write_course(tmp_path, TWINS, rate_limit="null", assignment="'Attention (77)'"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    one, one_csrf = sign_in(app, student("101"))
    two, two_csrf = sign_in(app, student("102"))
    _upload(one, one_csrf, "x = 1  # score 40\n")
    latest = _upload(one, one_csrf, "x = 2  # score 70\n")
    _upload(two, two_csrf, "x = 3  # score 55\n")
    drain(app.state.svc.store, fake_grade)
    _upload(two, two_csrf, "x = 4  # score 99\n")  # queued, not graded: the graded one counts
    teacher, csrf = sign_in(app, INSTRUCTOR)
    assert _override(teacher, csrf, "101", latest, "72").status_code == 303
    view = _text(teacher.get("/class").text)
    assert "latest graded attempt" in view  # which attempt counts, said on the page

    r = teacher.get("/exports/gradebook")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rows = {row["ID"]: row for row in _rows(r.text)}
    assert {k: (v["Student"], v["Score"]) for k, v in rows.items()} == {
        "101": ("Wei Li", "72"), "102": ("Wei Li", "55"), "103": ("Cy Three", "")}
    assert REASON in rows["101"]["Notes"]
    canvas = _rows(teacher.get("/exports/canvas").text)
    assert list(canvas[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (77)"]
    assert {row["ID"]: row["Attention (77)"] for row in canvas} == {"101": "72", "102": "55"}  # no blank for 103


def test_the_moodle_worksheet_roster_is_written_back_whole_with_the_grades(tmp_path, clock):
    folder = tmp_path / "course"
    path = write_course(folder, rate_limit="null")
    header = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
              "Last modified (submission),Last modified (grade),Feedback comments\n")
    (folder / "roster.csv").write_text(header + "".join(
        f"Participant {pid},{name},{email},,,100.00,Yes,-,{modified},\n" for pid, name, email, modified in [
            ("501", "Wei Li", "a@uni.example", "-"), ("502", "Wei Li", "b@uni.example", "\"1 Dec 2026, 10:00\""),
            ("503", "Cy Three", "c@uni.example", "-")]), encoding="utf-8")
    app = make_app(load_course(path), SECRET, grade=None, clock=clock)
    for pid, score in (("501", 30), ("502", 80)):  # the roster reads the participant id as each student's id
        client, csrf = sign_in(app, student(pid))
        _upload(client, csrf, f"x = 1  # score {score}\n")
    drain(app.state.svc.store, fake_grade)
    teacher, _ = sign_in(app, INSTRUCTOR)
    rows = _rows(teacher.get("/exports/moodle").text)
    assert [(r["Identifier"], r["Grade"], r["Last modified (grade)"]) for r in rows] == [
        ("Participant 501", "30", "-"), ("Participant 502", "80", "1 Dec 2026, 10:00"), ("Participant 503", "", "-")]


def test_manual_release_is_refused_before_the_due_date_then_shows_students_their_grade(tmp_path, clock):
    course = load_course(write_course(tmp_path, release="manual", rate_limit="null"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    ada, csrf = sign_in(app, student("s1"))
    _upload(ada, csrf, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)
    teacher, teacher_csrf = sign_in(app, INSTRUCTOR)
    r = teacher.post("/release", data={"csrf": teacher_csrf})
    assert r.status_code == 409 and "due date" in _text(r.text) and course.due.isoformat() in _text(r.text)
    assert "score released later" in ada.get("/").text
    clock.now = course.due + timedelta(minutes=1)
    assert "score released later" in ada.get("/").text  # manual: the due date alone releases nothing
    assert "Release grades" in teacher.get("/class").text
    assert teacher.post("/release", data={"csrf": teacher_csrf}).status_code == 303
    assert "40 / 100" in ada.get("/").text and "score released later" not in ada.get("/").text
    assert "released" in _text(teacher.get("/class").text).lower()
    assert app.state.svc.released(clock.now)


def test_release_is_refused_where_the_policy_is_not_manual(app):
    teacher, csrf = sign_in(app, INSTRUCTOR)
    assert "Release grades" not in teacher.get("/class").text
    r = teacher.post("/release", data={"csrf": csrf})
    assert r.status_code == 409 and "release: immediate" in _text(r.text)


def test_the_same_file_handed_in_again_carries_its_override_on_the_page_the_worker_rendered(app, clock):
    from grader.serve.worker import student_pages

    ada, csrf, _, second = _two_attempts(app)
    teacher, teacher_csrf = sign_in(app, INSTRUCTOR)
    assert _override(teacher, teacher_csrf, "s1", second, "65").status_code == 303
    clock.advance(11)  # past the rate limit
    again = _upload(ada, csrf, "x = 2  # score 60\n")  # the counted attempt's file, byte for byte
    svc = app.state.svc
    drain(svc.store, fake_grade, present=student_pages(svc.course, clock))  # the worker renders the student's page
    page = _text(ada.get(f"/submissions/{again}").text)
    assert "Total set to 65 (it was 60)" in page and REASON in page  # the override made for that file holds
