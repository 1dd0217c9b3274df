"""A course folder and an app over it (no worker: each test drains the queue itself)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.serving import SECRET, Clock, write_course

from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.store import CourseStore


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def course_path(tmp_path) -> Path:
    return write_course(tmp_path / "course")


@pytest.fixture
def app(course_path, clock):
    course = load_course(course_path)
    return make_app(course, SECRET, grade=None, store=CourseStore(course.store), clock=clock)
