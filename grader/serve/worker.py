"""A worker: takes the oldest queued submission, grades it as `grade` does, stores the report (and the
student's page of it, rendered once here rather than by the web process on every view)."""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from grader.report.models import Report
from grader.sandbox import Sandbox
from grader.serve.store import CourseStore, PageKey, ProcessIdentity

Grade = Callable[[Path], Report]
# The pages a worker renders as it grades: (audience, published) -> the report's HTML for that reader.
Present = Callable[[Report], dict[PageKey, str]]


def sandbox_grader(rubric_path: Path, secret: str, sandbox: Sandbox | None = None) -> Grade:
    """The class run's grading of one file: the instructor rubric, hidden probes seeded by the secret,
    in one warm sandbox kept for the worker's life."""
    from grader.grade import grade_file, judge, notebook_script, shared_sandbox, unread
    from grader.intake.bounds import Unreadable
    from grader.rubric import load_rubric

    rubric = load_rubric(rubric_path)
    sandbox = sandbox or shared_sandbox()

    def grade(path: Path) -> Report:
        # A notebook, or a script exported from one, is graded as the class run grades it: its definitions.
        try:
            script = notebook_script(path)
        except Unreadable as exc:
            return judge(unread(path, sandbox, str(exc)), rubric=rubric, audience="instructor")
        if script is None:
            return grade_file(path, sandbox=sandbox, rubric=rubric, secret=secret, audience="instructor")
        graded = path.parent / "script" / "attention.py"
        graded.parent.mkdir()
        graded.write_text(script, encoding="utf-8")
        return grade_file(graded, sandbox=sandbox, rubric=rubric, secret=secret, audience="instructor")

    return grade


def grade_one(store: CourseStore, grade: Grade, *, worker: int, present: Present | None = None) -> int | None:
    """Grades one queued submission; its id, or None when the queue is empty."""
    claimed = store.claim(worker)
    if claimed is None:
        return None
    submission, filename, source = claimed
    # Each file alone in its own folder, under the name the student gave: nothing else is in reach.
    with tempfile.TemporaryDirectory(prefix="grader-serve-") as tmp:
        path = Path(tmp) / filename
        path.write_bytes(source)
        report = grade(path)
    report = report.model_copy(update={"submission": filename})
    store.finish(submission, worker, report.model_dump_json(), present(report) if present else None)
    return submission


def start_worker(store: CourseStore, worker: int | None = None, *,
                 given_up: Callable[[int], None] | None = None) -> int:
    """Registers this process under a fresh start id (not the pid alone: a dead worker's pid may come
    back as ours) and puts back in the queue what dead workers held (`given_up`: those abandoned too
    often, now grader errors); the start id."""
    worker = worker or secrets.randbits(62)
    identity = ProcessIdentity.of(os.getpid())
    if identity is not None:
        store.register_worker(worker, identity)
    store.requeue_abandoned(given_up=given_up)
    return worker


def drain(store: CourseStore, grade: Grade, *, worker: int | None = None, present: Present | None = None,
          graded: Callable[[int], None] | None = None) -> int:
    """Grades until the queue is empty (each id told to `graded`); how many it graded."""
    worker = start_worker(store, worker)
    done = 0
    while (sid := grade_one(store, grade, worker=worker, present=present)) is not None:
        done += 1
        if graded is not None:
            graded(sid)
    return done


def student_pages(course, clock: Callable[[], object]) -> Present:
    """The student's page of each report, rendered as it is graded under the release policy of that
    moment (a later change of policy or the due date passing renders the other page once, on its first view)."""
    from grader.report.html import render_fragment

    def present(report: Report) -> dict[PageKey, str]:
        published = course.released(clock())
        return {("student", published): render_fragment(report, audience="student", published=published)}

    return present
