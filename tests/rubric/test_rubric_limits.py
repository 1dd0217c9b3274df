"""Limits in the rubric: today's values as defaults, FILE:LINE problems, and passed to the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.grade import execute
from grader.rubric import RubricError, parse_rubric
from grader.sandbox import Limits, RunResult

BASE = """\
assignment_id: demo
title: Demo
# what a submission must define follows from the checks
secret_env: GRADER_SECRET
checks:
  - id: return_contract
    points: 3
"""


def problems(text: str) -> list[str]:
    with pytest.raises(RubricError) as err:
        parse_rubric(text, "x.yaml")
    return err.value.problems


def test_absent_limits_leave_the_sandbox_defaults():
    assert parse_rubric(BASE).limits is None


def test_listed_limits_keep_todays_values_for_the_rest():
    rubric = parse_rubric(BASE + "limits:\n  call_s: 12\n  memory_mib: 4096\n")
    got = rubric.limits.sandbox_limits(Limits())
    today = Limits()
    assert (got.call_s, got.load_s, got.submission_s) == (12, today.load_s, today.submission_s)
    assert got.memory_headroom_bytes == 4096 << 20
    assert got.cpu_s == 40  # the call deadline grew 4x, so does CPU time (10 s today)
    assert (got.nproc, got.output_bytes) == (today.nproc, today.output_bytes)  # not the rubric's business
    unchanged = parse_rubric(BASE + "limits: {}\n").limits.sandbox_limits(today)
    assert unchanged == today


@pytest.mark.parametrize("block,expected", [
    ("limits:\n  call_s: -1\n", "x.yaml:9:11: limits.call_s: must be > 0, got -1"),
    ("limits:\n  call_s: 601\n", "x.yaml:9:11: limits.call_s: must be <= 600, got 601"),
    ("limits:\n  call_sec: 5\n", "x.yaml:9:3: limits.call_sec: unknown key (did you mean 'call_s'?)"),
    ("limits:\n  memory_mib: 32\n", "x.yaml:9:15: limits.memory_mib: must be >= 64, got 32"),
    ("limits:\n  submission_s: '30'\n", "x.yaml:9:17: limits.submission_s: must be a number, got quoted text '30'; remove the quotes"),
    ("limits:\n  import_s: 40\n", "x.yaml:9:13: limits.import_s: 40 s is longer than submission_s (30 s), the deadline for the whole submission"),
])
def test_bad_limits_are_located(block, expected):
    assert problems(BASE + block) == [expected]


class RecordingSandbox:
    """Stands in for the sandbox: records the limits each run was given."""

    limits = Limits(call_s=1.0)

    def __init__(self):
        self.given = []

    def run(self, path, calls, hidden_paths=(), limits=None):
        self.given.append(limits)
        return RunResult(load=None, isolation="rlimits-only")


def test_the_rubric_limits_reach_the_sandbox(tmp_path: Path):
    source = tmp_path / "attention.py"
    source.write_text("def causal_attention(q, k, v):\n    return q, k\n")
    sandbox = RecordingSandbox()
    execute(source, sandbox=sandbox, rubric=parse_rubric(BASE), secret=None, audience="instructor")
    execute(source, sandbox=sandbox, rubric=parse_rubric(BASE + "limits: {submission_s: 90}\n"), secret=None,
            audience="instructor")
    assert sandbox.given[0] is None  # the sandbox keeps its own
    # A listed block sets every deadline: unlisted ones are today's values, not the sandbox's 1 s.
    assert sandbox.given[1] == Limits(call_s=3.0, submission_s=90, cpu_s=30)
