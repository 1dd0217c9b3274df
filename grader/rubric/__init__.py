"""YAML rubrics: which checks count, for how many points, who sees them, and what a student is told.

The format lives in `model.py` (pydantic; its JSON Schema is `grader/schemas/rubric.schema.json`),
loading with FILE:LINE:COLUMN problems in `load.py`, scoring in `score.py`, the CLI verb in `cli.py`
(`python -m grader rubric validate FILE...`).

Decisions the rest of the grader relies on:

- One rubric, two views: `Rubric.student_view()` keeps the `visible` checks with the same points,
  texts and hints; a student's `check` runs it (`load_self_check`), and `release` writes it into the
  bundle as YAML, so the instructor rubric itself never leaves the instructor's machine.
- Audience "student" sees only checks whose visibility is `visible`. Every other check is absent
  from the report: no name, input, expected value, feedback or points, and its points are absent
  from the student's total and group subtotals (so a self-check out of 60 is not a score out of 100
  with 40 unexplained points missing). Audience "instructor" sees every check.
- A check whose prerequisite (`requires`) did not pass is `skipped`, scores 0, and its feedback names
  the prerequisite, except that a student is told only "a hidden check" for one hidden from them.
  Prerequisites are decided on every check's outcome, hidden ones included.
- Scores: `passed` earns full points. Otherwise `fraction` earns points x cases_passed / cases_total
  (an `error` too: the cases that passed before it raised still count); `all_or_nothing` earns 0.
- Feedback: the rubric's `passed` text replaces the check's own; for `failed` and `error` the
  check's own finding (which row, which probe, what raised) follows the rubric's `failed` text.
  Expected and observed numbers are kept.
- Groups: a check counts toward its rubric `group`, else the registry's; subtotals are listed in
  order of first appearance in the rubric, and only for groups with at least one reported check.
- Hints go only with `failed` or `error` (a skipped check's cause is elsewhere). Without a state file
  the first hint is shown, so a report is a pure function of file, secret and rubric. With
  `hint_state_path` and `hint_key`, a failing check shows its next hint once the code (`hint_source`,
  a hash) has changed and still fails; rerunning the same code shows the same hint.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.rubric.cli import register
    from grader.rubric.load import RubricError, dump_rubric, load_rubric, load_self_check, parse_rubric
    from grader.rubric.model import Rubric, RubricCheck
    from grader.rubric.score import ScoredChecks, score_checks

# Loaded on first use: the check ids come from the registry, which imports torch, and the CLI
# registers `rubric validate` for every verb, the quiz included, which must run without torch.
_HOME = {
    "register": "cli", "RubricError": "load", "load_rubric": "load", "parse_rubric": "load",
    "load_self_check": "load", "dump_rubric": "load",
    "Rubric": "model", "RubricCheck": "model", "ScoredChecks": "score", "score_checks": "score",
}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'grader.rubric' has no attribute {name!r}")
    return getattr(importlib.import_module(f"grader.rubric.{_HOME[name]}"), name)


__all__ = [
    "Rubric",
    "RubricCheck",
    "RubricError",
    "ScoredChecks",
    "dump_rubric",
    "load_rubric",
    "load_self_check",
    "parse_rubric",
    "register",
    "score_checks",
]
