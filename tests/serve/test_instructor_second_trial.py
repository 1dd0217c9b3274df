"""Found by a new instructor trying the service's overrides, exports and manual release (two students named
"Lee, Sam", a roster exported from Canvas's gradebook): each as the CLI does it, or refused plainly."""

from __future__ import annotations

import csv
import html
import io
import re
from datetime import timedelta
from pathlib import Path

from starlette.testclient import TestClient
from support.serving import SECRET, Clock, fake_grade, sign_in, student, write_course

from grader.report.models import CheckReport, Report, Runtime
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.tokens import INSTRUCTOR
from grader.serve.worker import drain

CANVAS_ROSTER = ('Student,ID,SIS User ID,SIS Login ID,Section,Attention (77)\n'
                 '    Points Possible,,,,,100.00\n'
                 '"Lee, Sam",5001,S5001,slee1,Sec 1,\n'
                 '"Lee, Sam",5002,S5002,slee2,Sec 1,\n'
                 '"Park, Ana",5003,S5003,apark,Sec 2,\n'
                 '"Student, Test",9999,,abc123,Sec 1,\n')
WORKSHEET = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
             "Last modified (submission),Last modified (grade),Feedback comments\n"
             "Participant 501,Wei Li,a@uni.example,,,100.00,Yes,-,-,\n")


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def _upload(client: TestClient, csrf: str, code: str) -> int:
    r = client.post("/submit", data={"csrf": csrf, "code": code})
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def _override(client, csrf, key, submission, points, *, check="", reason="late penalty: 10 points"):
    return client.post(f"/class/{key}/override", data={
        "csrf": csrf, "submission": str(submission), "check": check, "points": points, "reason": reason})


def _canvas_course(tmp_path: Path, clock: Clock, **extra: str):
    path = write_course(tmp_path / "course", rate_limit="null", assignment="'Attention (77)'", **extra)
    (tmp_path / "course" / "roster.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    return make_app(load_course(path), SECRET, grade=None, clock=clock)


def checked_grade(path: Path) -> Report:
    """Two checks, one shown only once results are released, so a student's copy before then holds one back."""
    checks = [CheckReport(id="shape_validation", title="Shape validation", status="passed", score=2, max_score=2,
                          feedback="ok"),
              CheckReport(id="random_probes", title="Random probes", status="passed", score=8, max_score=8,
                          feedback="ok", visibility="after_published")]
    return Report(submission=path.name, score=10.0, max_score=10.0, checks=checks,
                  runtime=Runtime(isolation="test", wall_s=0.0))


def test_a_canvas_roster_gives_moodle_no_participant_ids_and_the_class_view_lists_each_row(tmp_path, clock):
    """The worksheet had `Participant 5001` from Canvas's user id: an upload grades whoever holds that number
    in Moodle. The CLI with that roster writes the header alone and names each row; so does the service."""
    app = _canvas_course(tmp_path, clock)
    for key in ("5001", "5002"):
        client, csrf = sign_in(app, student(key))
        _upload(client, csrf, "x = 1  # score 90\n")
    drain(app.state.svc.store, fake_grade)
    teacher, _ = sign_in(app, INSTRUCTOR)
    r = teacher.get("/exports/moodle")
    assert r.status_code == 200 and "Participant" not in r.text and _rows(r.text) == []
    view = _text(teacher.get("/class").text)
    for key in ("5001", "5002"):
        assert f"Lee, Sam ({key}): no Moodle participant id (enter this grade by hand)" in view
    canvas = _rows(teacher.get("/exports/canvas").text)  # the control: Canvas's own ids still go to Canvas
    assert {row["ID"]: row["Attention (77)"] for row in canvas} == {"5001": "90", "5002": "90"}


def test_a_moodle_worksheet_roster_gives_canvas_no_user_ids(tmp_path, clock):
    """The mirror case: a participant id is not a Canvas user id (the CLI's Moodle rows have none)."""
    path = write_course(tmp_path / "course", rate_limit="null")
    (tmp_path / "course" / "roster.csv").write_text(WORKSHEET, encoding="utf-8")
    app = make_app(load_course(path), SECRET, grade=None, clock=clock)
    client, csrf = sign_in(app, student("501"))
    _upload(client, csrf, "x = 1  # score 30\n")
    drain(app.state.svc.store, fake_grade)
    teacher, _ = sign_in(app, INSTRUCTOR)
    assert [r["Identifier"] for r in _rows(teacher.get("/exports/moodle").text)] == ["Participant 501"]
    assert _rows(teacher.get("/exports/canvas").text) == []
    assert "Wei Li (501): no Canvas user id or SIS id to match" in _text(teacher.get("/class").text)


def test_an_override_is_offered_and_taken_only_on_the_attempt_that_counts(app):
    ada, csrf = sign_in(app, student("s1"))
    first = _upload(ada, csrf, "x = 1  # score 40\n")
    second = _upload(ada, csrf, "x = 2  # score 60\n")
    drain(app.state.svc.store, fake_grade)
    teacher, t_csrf = sign_in(app, INSTRUCTOR)
    r = _override(teacher, t_csrf, "s1", first, "45")
    assert r.status_code == 409, r.text
    said = _text(r.text)
    assert "attempt 1 does not count" in said and "attempt 2" in said and "latest graded attempt" in said
    assert app.state.svc.store.overrides("s1") == []
    page = teacher.get("/class/s1").text
    assert page.count('class="override-form"') == 1
    assert f'name="submission" value="{second}"' in page and f'name="submission" value="{first}"' not in page
    assert _override(teacher, t_csrf, "s1", second, "65").status_code == 303  # the control


def test_an_override_recorded_again_for_the_new_attempt_leaves_one_true_note(app, clock):
    ada, csrf = sign_in(app, student("s1"))
    first = _upload(ada, csrf, "x = 1  # score 100\n")
    drain(app.state.svc.store, fake_grade)
    teacher, t_csrf = sign_in(app, INSTRUCTOR)
    assert _override(teacher, t_csrf, "s1", first, "90").status_code == 303
    second = _upload(ada, csrf, "x = 2  # score 100\n")
    drain(app.state.svc.store, fake_grade)
    stale = _rows(teacher.get("/exports/gradebook").text)[0]["Notes"]  # not recorded again yet: it says so
    assert "was made for another submission and is not applied" in stale
    assert _override(teacher, t_csrf, "s1", second, "90").status_code == 303
    row = next(r for r in _rows(teacher.get("/exports/gradebook").text) if r["ID"] == "s1")
    assert row["Score"] == "90" and row["Notes"] == "override of the total: late penalty: 10 points"
    view = _text(teacher.get("/class").text)
    assert "not applied" not in view and "override of the total: late penalty: 10 points" in view


def test_two_students_of_one_name_are_told_apart_wherever_the_service_names_them(tmp_path, clock):
    app = _canvas_course(tmp_path, clock)
    clients = {}
    for key in ("5001", "5002"):
        client, csrf = sign_in(app, student(key))
        clients[key] = (client, _upload(client, csrf, "x = 1  # score 50\n"))
        assert f"signed in as Lee, Sam ({key})" in _text(client.get("/").text)
    drain(app.state.svc.store, fake_grade)
    teacher, _ = sign_in(app, INSTRUCTOR)
    view = teacher.get("/class").text
    assert ">Lee, Sam (5001)</a>" in view and ">Lee, Sam (5002)</a>" in view
    assert "<h1>Lee, Sam (5002)</h1>" in teacher.get("/class/5002").text
    report = _text(teacher.get(f"/submissions/{clients['5002'][1]}").text)
    assert "Lee, Sam (5002), attempt 1" in report and "signed in as instructor" in report
    assert "signed in as Lee, Sam (5001)" in _text(clients["5001"][0].get(f"/submissions/{clients['5001'][1]}").text)


def test_the_moodle_comment_points_at_the_services_report_and_matches_the_clis_before_release(tmp_path, clock):
    from grader.batch.lms import FEEDBACK_FILE, feedback_comment
    from grader.serve.grades import SERVICE_REPORT, class_results

    path = write_course(tmp_path / "course", rate_limit="null", release="manual")
    (tmp_path / "course" / "roster.csv").write_text(WORKSHEET, encoding="utf-8")
    app = make_app(load_course(path), SECRET, grade=None, clock=clock)
    client, csrf = sign_in(app, student("501"))
    _upload(client, csrf, "x = 1\n")
    drain(app.state.svc.store, checked_grade)
    teacher, t_csrf = sign_in(app, INSTRUCTOR)
    svc = app.state.svc
    for released in (False, True):
        (row,) = _rows(teacher.get("/exports/moodle").text)
        comment = row["Feedback comments"]
        assert "feedback file" not in comment and "your report on the course's grader" in comment
        (result,) = class_results(svc.course, svc.store)
        cli = feedback_comment(result, published=released)  # what `grade --lms moodle` writes, published or not
        assert comment == cli.removesuffix(FEEDBACK_FILE) + SERVICE_REPORT
        assert ("Score:" in comment) is released and ("not your grade" in comment) is not released
        clock.now = svc.course.due + timedelta(minutes=1)
        assert teacher.post("/release", data={"csrf": t_csrf}).status_code == 303


def test_a_replaced_override_stays_in_the_history_as_replaced(app, clock):
    ada, csrf = sign_in(app, student("s1"))
    sub = _upload(ada, csrf, "x = 1  # score 60\n")
    drain(app.state.svc.store, fake_grade)
    teacher, t_csrf = sign_in(app, INSTRUCTOR)
    assert _override(teacher, t_csrf, "s1", sub, "70", reason="first look").status_code == 303
    at = clock.now.isoformat(timespec="seconds")
    clock.advance(5)
    assert _override(teacher, t_csrf, "s1", sub, "75", reason="second look").status_code == 303
    history = _text(teacher.get("/class/s1").text)
    assert "Total set to 75 (it was 60)" in history and "second look" in history
    assert re.search(rf"replaced: the total set to 70: first look \(instructor, {re.escape(at)}\), "
                     rf"replaced at {re.escape(clock.now.isoformat(timespec='seconds'))}", history), history


def test_an_upload_after_the_due_date_is_403_not_429(app, clock):
    ada, csrf = sign_in(app, student("s1"))
    clock.now = app.state.svc.course.due + timedelta(minutes=1)
    r = ada.post("/submit", data={"csrf": csrf, "code": "x = 1\n"})
    assert r.status_code == 403 and "has passed; submissions are closed" in _text(r.text)


def test_a_refused_check_override_names_the_check_by_its_title(app):
    ada, csrf = sign_in(app, student("s1"))
    sub = _upload(ada, csrf, "x = 1\n")
    drain(app.state.svc.store, checked_grade)
    teacher, t_csrf = sign_in(app, INSTRUCTOR)
    r = _override(teacher, t_csrf, "s1", sub, "5", check="shape_validation")
    said = _text(r.text)
    assert r.status_code == 400 and "the points for “Shape validation” must be between 0 and 2" in said, said
    assert "shape_validation" not in said


def test_an_attempt_number_that_is_no_number_gets_the_styled_page(app):
    ada, _ = sign_in(app, student("s1"))
    for path in ("/submissions/-1", "/submissions/2a", "/nosuch"):
        r = ada.get(path)
        assert r.status_code == 404 and "<!DOCTYPE html>" in r.text and "No such page" in r.text, path


def test_tokens_with_a_missing_roster_print_one_prefixed_error_and_no_link(tmp_path, capsys):
    from grader.cli import main

    path = write_course(tmp_path)
    (tmp_path / "roster.csv").unlink()
    assert main(["serve", "tokens", "--course", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("grader: ") and "roster" in err and "sign-in" not in err
