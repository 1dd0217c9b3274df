"""`grader serve`: the course file read and checked, then the app on uvicorn, or the sign-in links printed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from grader.rubric.load import RubricError
from grader.serve.course import load_course, read_secret, students
from grader.serve.tokens import INSTRUCTOR, Who, token_for


def _ready(course_path: Path):
    course = load_course(course_path)
    return course, read_secret(course)


def print_tokens(course_path: Path, *, base_url: str) -> int:
    try:  # every input checked (the roster too) before the first link is printed
        course, secret = _ready(course_path)
        names = students(course)
    except RubricError as err:
        print("\n".join(f"grader: {p}" for p in err.problems), file=sys.stderr)
        return 2
    print(f"instructor\t{base_url}/sign-in?token={token_for(secret, INSTRUCTOR)}")
    for key, name in names.items():
        print(f"{key}\t{name}\t{base_url}/sign-in?token={token_for(secret, Who('student', key))}")
    return 0


def serve(course_path: Path, *, host: str, port: int, before_secret: Callable[[], None],
          workers: int | None = None) -> int:
    """`before_secret` plants the sandbox's seed: its servers are forked before the secret is read.
    `workers`: grading processes (else the course file's `workers:`, else the cores this process may use)."""
    from grader.rubric import load_rubric

    try:
        course = load_course(course_path)
        load_rubric(course.rubric)  # a broken rubric stops the start, not the first upload
        if course.lti is not None:  # and so do LTI key files that cannot be read, before any sandbox starts
            from grader.serve.lti import read_key_set, read_tool_key

            read_key_set(course.lti)
            read_tool_key(course.lti)
        before_secret()
        secret = read_secret(course)
    except RubricError as err:
        print("\n".join(f"grader: {p}" for p in err.problems), file=sys.stderr)
        return 2
    import uvicorn

    from grader.batch.cores import usable_cores
    from grader.serve.app import make_app
    from grader.serve.course import now
    from grader.serve.pool import Workers
    from grader.serve.worker import sandbox_grader, student_pages

    def grader():  # in each worker, after the fork: its own warm sandbox
        return sandbox_grader(course.rubric, secret), student_pages(course, now)

    # Forked here, before uvicorn starts a thread: the pages are served by this process, grading by them.
    pool = Workers(course.store, grader, workers or course.workers or usable_cores())
    try:  # the LTI key set and the tool's key are read at the start, so a bad one stops it here
        app = make_app(course, secret, grade=None, workers=pool)
    except RubricError as err:
        pool.close()
        print("\n".join(f"grader: {p}" for p in err.problems), file=sys.stderr)
        return 2
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)  # its log has no tokens
    return 0
