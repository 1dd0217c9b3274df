"""The shipped rubrics validate, agree with each other, and the JSON Schema is current."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from grader.checks.base import DEFAULT_TOLERANCES
from grader.checks.registry import CHECK_IDS
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric, load_self_check, register
from grader.schemas import path_of

SCHEMA_PATH = path_of("rubric")

RUBRICS = Path(str(INSTRUCTOR_RUBRIC)).parent
INSTRUCTOR = load_rubric(INSTRUCTOR_RUBRIC)
SELF_CHECK = load_self_check()

# Fragments of the solution's code; a hint may describe an idea but never hand over these.
SOLUTION_CODE = re.compile(r"masked_fill\(|\.tril|\.triu|torch\.tril|softmax\(|float\(.-inf.\)|transpose\(-2|@|dim=-1")


def test_both_shipped_rubrics_validate(capsys):
    parser = argparse.ArgumentParser(prog="grader")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rubric", "validate", *(str(p) for p in sorted(RUBRICS.glob("*.yaml")))])
    assert args.func(args) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.count(": ok:") == 1  # one rubric; the self-check is its student view


def test_instructor_rubric_is_complete_and_worth_100():
    assert INSTRUCTOR.max_score == 100
    assert sorted(INSTRUCTOR.check_ids) == sorted(CHECK_IDS)
    assert any(c.visibility == "hidden" for c in INSTRUCTOR.checks)
    assert INSTRUCTOR.entry_points == ("causal_attention", "SingleHead")  # what its checks call
    heaviest = sorted(INSTRUCTOR.checks, key=lambda c: -c.points)[:3]
    assert {c.id for c in heaviest} == {"leak_intervention", "worked_example", "mask_structure"}


def test_self_check_is_the_visible_part_of_the_instructor_rubric():
    assert {"single_head", "single_head_gradients"} <= set(SELF_CHECK.check_ids) & set(INSTRUCTOR.check_ids)
    visible = {c.id: c for c in INSTRUCTOR.checks if c.visibility == "visible"}
    assert sorted(SELF_CHECK.check_ids) == sorted(visible)
    for check in SELF_CHECK.checks:
        twin = visible[check.id]
        assert check.visibility == "visible"
        assert (check.points, check.partial_credit, check.requires) == (twin.points, twin.partial_credit, twin.requires)
        assert (check.feedback, check.hints) == (twin.feedback, twin.hints)  # the same texts
        assert len(check.hints) >= 1 and check.feedback and check.feedback.passed and check.feedback.failed
    assert (SELF_CHECK.assignment_id, SELF_CHECK.secret_env) == (INSTRUCTOR.assignment_id, INSTRUCTOR.secret_env)
    assert SELF_CHECK.entry_points == INSTRUCTOR.entry_points


@pytest.mark.parametrize("rubric", [INSTRUCTOR, SELF_CHECK], ids=["instructor", "self_check"])
def test_shipped_tolerances_are_the_grader_defaults(rubric):
    # Written out for the instructor to see; a looser number here would weaken every check silently.
    for dtype, tolerance in DEFAULT_TOLERANCES.items():
        assert rubric.tolerance("worked_example", dtype) == tolerance
    assert all(c.tolerance is None for c in rubric.checks)


@pytest.mark.parametrize("rubric", [INSTRUCTOR, SELF_CHECK], ids=["instructor", "self_check"])
def test_student_text_gives_no_solution_code(rubric):
    texts = [h if isinstance(h, str) else h.text for c in rubric.checks for h in c.hints]
    texts += [t for c in rubric.checks if c.feedback for t in (c.feedback.passed, c.feedback.failed) if t]
    assert texts
    assert [t for t in texts if SOLUTION_CODE.search(t)] == []
    assert SOLUTION_CODE.search("scores = scores.masked_fill(~allowed, float('-inf'))")  # the filter has teeth


def test_schema_lists_the_registry_ids_for_editors():
    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema["$defs"]["RubricCheck"]["properties"]["id"]["enum"] == list(CHECK_IDS)


def test_editors_validate_with_the_schema():
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    for path in RUBRICS.glob("*.yaml"):
        assert list(validator.iter_errors(yaml.safe_load(path.read_text()))) == []
    bad = yaml.safe_load(INSTRUCTOR_RUBRIC.read_text())
    bad["checks"][0]["id"] = "worked_exampel"
    bad["checks"][1]["points"] = -1
    bad["checks"][2]["visibility"] = "secret"
    assert len(list(validator.iter_errors(bad))) == 3
