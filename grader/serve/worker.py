"""The one worker: takes the oldest queued submission, grades it as `grade` does, stores the report."""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from grader.report.models import Report
from grader.sandbox import Sandbox
from grader.serve.store import CourseStore

Grade = Callable[[Path], Report]


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


def grade_one(store: CourseStore, grade: Grade, *, worker: int) -> bool:
    """Grades one queued submission; False when the queue is empty."""
    claimed = store.claim(worker)
    if claimed is None:
        return False
    submission, filename, source = claimed
    # Each file alone in its own folder, under the name the student gave: nothing else is in reach.
    with tempfile.TemporaryDirectory(prefix="grader-serve-") as tmp:
        path = Path(tmp) / filename
        path.write_bytes(source)
        report = grade(path)
    report = report.model_copy(update={"submission": filename})
    store.finish(submission, worker, report.model_dump_json())
    return True


def drain(store: CourseStore, grade: Grade, *, worker: int | None = None) -> int:
    """Re-queues what a dead worker held (one worker per store), then grades until the queue is empty; how many it graded."""
    # A fresh id for each start, not the pid: a dead worker's pid may come back as ours.
    worker = worker or secrets.randbits(62)
    store.requeue_abandoned(worker)
    done = 0
    while grade_one(store, grade, worker=worker):
        done += 1
    return done
