"""Notebooks through the service, graded as the class run grades them, and what changed between a
student's attempts: the code (a notebook's as its script) and the findings, under the reader's view."""

from __future__ import annotations

import html
import json

from support.corpora import ROOT
from support.serving import SECRET, fake_grade, sign_in, student, write_course

from grader.grade import grade_file
from grader.paths import INSTRUCTOR_RUBRIC
from grader.report.models import Report
from grader.rubric import load_rubric
from grader.serve.app import make_app
from grader.serve.attempts import code_text
from grader.serve.course import load_course
from grader.serve.tokens import INSTRUCTOR
from grader.serve.worker import drain, sandbox_grader

NO_MASK, FIXED = ROOT / "reference" / "mutants" / "no_mask.py", ROOT / "reference" / "attention.py"


def _notebook(*cells: str) -> bytes:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                                  "source": c.splitlines(keepends=True)} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _submit(client, csrf, name: str, data: bytes) -> str:
    r = client.post("/submit", data={"csrf": csrf}, files={"file": (name, data)})
    assert r.status_code == 303, r.text
    return r.headers["location"]


def test_a_notebook_is_graded_on_its_definitions_as_the_py_is(app, sandbox, tmp_path):
    ada, csrf = sign_in(app, student("s1"))
    # Its last cell tries the code out: the class run leaves such cells out, and so does the service.
    where = _submit(ada, csrf, "week3.ipynb", _notebook(NO_MASK.read_text(), "raise SystemExit('a test cell ran')"))
    assert drain(app.state.svc.store, sandbox_grader(INSTRUCTOR_RUBRIC, SECRET, sandbox)) == 1
    stored = Report.model_validate_json(app.state.svc.store.get(int(where.rsplit("/", 1)[1])).report)
    copy = tmp_path / "attention.py"
    copy.write_bytes(NO_MASK.read_bytes())
    direct = grade_file(copy, sandbox=sandbox, rubric=load_rubric(INSTRUCTOR_RUBRIC), secret=SECRET)
    assert stored.submission == "week3.ipynb"
    assert stored.score == direct.score and stored.diagnoses
    assert [d.id for d in stored.diagnoses] == [d.id for d in direct.diagnoses]
    assert stored.diagnoses[0].section in ada.get(where).text


def test_a_notebook_that_is_not_one_is_graded_as_unreadable_with_its_reason(app, sandbox):
    ada, csrf = sign_in(app, student("s1"))
    where = _submit(ada, csrf, "week3.ipynb", b"{ this is not json")
    assert drain(app.state.svc.store, sandbox_grader(INSTRUCTOR_RUBRIC, SECRET, sandbox)) == 1
    report = Report.model_validate_json(app.state.svc.store.get(int(where.rsplit("/", 1)[1])).report)
    assert report.score == 0 and report.status != "ok"
    page = ada.get(where)
    assert page.status_code == 200 and "Traceback" not in page.text
    assert "not readable JSON" in html.unescape(page.text)  # the reason, from intake's reader


def test_other_files_are_still_refused(app):
    ada, csrf = sign_in(app, student("s1"))
    r = ada.post("/submit", data={"csrf": csrf}, files={"file": ("notes.txt", b"x = 1\n")})
    assert r.status_code == 400 and ".ipynb" in r.text


def test_the_second_attempt_says_what_changed_in_the_code_and_the_findings(app, sandbox):
    ada, csrf = sign_in(app, student("s1"))
    first = _submit(ada, csrf, "attention.py", NO_MASK.read_bytes())
    second = _submit(ada, csrf, "attention.py", FIXED.read_bytes())
    drain(app.state.svc.store, sandbox_grader(INSTRUCTOR_RUBRIC, SECRET, sandbox))
    assert "What changed" not in ada.get(first).text  # a first attempt has nothing before it
    page = html.unescape(ada.get(second).text)
    assert "What changed since attempt 1" in page
    before, after = (Report.model_validate_json(s.report) for s in app.state.svc.store.history("s1"))
    assert f"Score: {before.score:g} / 100 -> {after.score:g} / 100" in page  # released: immediate
    assert "no diagnosis any more" in page and "now passing: Worked example" in page
    removed = set(NO_MASK.read_text().splitlines()) - set(FIXED.read_text().splitlines())
    assert any(f"-{line}" in page for line in removed if line.strip())  # the lines the fix took out


def test_the_diff_is_the_students_own_and_holds_the_grade_until_release(tmp_path, clock):
    course = load_course(write_course(tmp_path, release="after_due", rate_limit="null"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    ada, ada_csrf = sign_in(app, student("s1"))
    bo, bo_csrf = sign_in(app, student("s2"))
    _submit(ada, ada_csrf, "attention.py", b"x = 1  # score 40\n")
    bo_first = _submit(bo, bo_csrf, "attention.py", b"y = 'bo'  # score 10\n")  # between Ada's two attempts
    ada_second = _submit(ada, ada_csrf, "attention.py", b"x = 2  # score 90\n")
    drain(app.state.svc.store, fake_grade)
    assert "What changed" not in bo.get(bo_first).text  # Ada's attempt before it is not Bo's
    page = html.unescape(ada.get(ada_second).text)
    assert "What changed since attempt 1" in page and "-x = 1  # score 40" in page and "+x = 2  # score 90" in page
    assert "y = 'bo'" not in page  # never another student's code
    changed = page[page.index('<section class="changes">'):page.index("</section>")]
    assert "Score:" not in changed  # after_due: the grade's change is not told before the due date
    teacher, _ = sign_in(app, INSTRUCTOR)
    assert "Score: 40 / 100 -> 90 / 100" in html.unescape(teacher.get(ada_second).text)  # the instructor sees it


def test_a_notebooks_code_is_compared_as_its_script():
    text = code_text("week3.ipynb", _notebook("def causal_attention(q, k, v):\n    return v\n"))
    assert "def causal_attention(q, k, v):" in text and '"cell_type"' not in text
    assert "could not be read" in code_text("week3.ipynb", b"not json")
    assert code_text("attention.py", b"x = 1\n") == "x = 1\n"
