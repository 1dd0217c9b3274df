"""Through the service, the real grading: the same report as `grade` gives the file, and the student's
page shows the diagnosis in the chapter's words and nothing of the hidden checks."""

from __future__ import annotations

from support.corpora import ROOT
from support.serving import SECRET, sign_in, student

from grader.grade import grade_file
from grader.paths import INSTRUCTOR_RUBRIC
from grader.report.models import Report
from grader.rubric import load_rubric
from grader.serve.tokens import INSTRUCTOR
from grader.serve.worker import drain, sandbox_grader

NO_MASK = ROOT / "reference" / "mutants" / "no_mask.py"


def test_an_upload_is_graded_as_grade_grades_it_and_shown_under_the_student_view(app, sandbox, tmp_path):
    ada, csrf = sign_in(app, student("s1"))
    r = ada.post("/submit", data={"csrf": csrf}, files={"file": ("attention.py", NO_MASK.read_bytes())})
    where = r.headers["location"]
    assert drain(app.state.svc.store, sandbox_grader(INSTRUCTOR_RUBRIC, SECRET, sandbox)) == 1

    stored = Report.model_validate_json(app.state.svc.store.get(int(where.rsplit("/", 1)[1])).report)
    copy = tmp_path / "attention.py"
    copy.write_bytes(NO_MASK.read_bytes())
    direct = grade_file(copy, sandbox=sandbox, rubric=load_rubric(INSTRUCTOR_RUBRIC), secret=SECRET)
    assert stored.score == direct.score
    assert [(c.id, c.status, c.score) for c in stored.checks] == [(c.id, c.status, c.score) for c in direct.checks]
    assert [d.id for d in stored.diagnoses] == [d.id for d in direct.diagnoses] and stored.diagnoses

    mine = ada.get(where).text
    assert stored.diagnoses[0].section in mine  # the chapter's words: the section to reread
    hidden = [c for c in stored.checks if c.visibility == "hidden"]
    assert hidden
    teacher, _ = sign_in(app, INSTRUCTOR)
    theirs = teacher.get(where).text
    for c in hidden:
        assert c.title in theirs  # the control: the instructor's page names it
        assert c.title not in mine and f"check-{c.id}" not in mine
