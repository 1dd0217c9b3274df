"""The course file: validated with FILE:LINE, paths from its own folder, the secret read from where it says."""

from __future__ import annotations

import pytest
from support.serving import SECRET, write_course

from grader.rubric.load import RubricError
from grader.serve.course import load_course, read_secret


def test_a_good_course_file_loads_with_paths_from_its_folder(course_path):
    course = load_course(course_path)
    assert course.roster == course_path.parent / "roster.csv"
    assert course.rate_limit.attempts == 3
    assert read_secret(course) == SECRET


@pytest.mark.parametrize(("key", "value", "line", "says"), [
    ("rate_limit", "{attempts: 0, minutes: 10}", 6, "rate_limit.attempts: must be >= 1"),
    ("release", "later", 7, "unknown value 'later'"),
    ("due", "2026-12-08T23:59:00", 5, "time zone"),
    ("secret", "{file: a, env: B}", 4, "exactly one of"),
    ("workers", "0", 10, "workers: must be >= 1"),
])
def test_a_bad_value_is_named_with_its_line(tmp_path, key, value, line, says):
    path = write_course(tmp_path, **{key: value})
    with pytest.raises(RubricError) as err:
        load_course(path)
    assert err.value.problems[0].startswith(f"{path}:{line}:"), err.value.problems
    assert says in err.value.problems[0]


def test_a_secret_variable_not_set_is_an_error_that_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_SECRET_X", raising=False)
    course = load_course(write_course(tmp_path, secret="{env: COURSE_SECRET_X}"))
    with pytest.raises(RubricError, match=r"\$COURSE_SECRET_X is not set"):
        read_secret(course)
    monkeypatch.setenv("COURSE_SECRET_X", "from-env")
    assert read_secret(course) == "from-env"
