"""`grader rubric validate FILE...`: check rubrics before anyone is graded with them."""

from __future__ import annotations

import argparse
import sys
from collections import Counter


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("rubric", help="Work with YAML rubrics.", description=__doc__)
    verbs = parser.add_subparsers(dest="rubric_verb", metavar="VERB", required=True)
    validate = verbs.add_parser(
        "validate",
        help="Report every problem in rubric files as FILE:LINE:COLUMN: message (exit 2 if any).",
    )
    validate.add_argument("files", nargs="+", metavar="FILE", help="rubric YAML files")
    validate.set_defaults(func=validate_command)
    view = verbs.add_parser(
        "student-view",
        help="Print the self-check a student runs: the rubric's visible checks, same points and texts (YAML).",
    )
    view.add_argument("file", metavar="FILE", nargs="?", help="instructor rubric (default: the shipped one)")
    view.set_defaults(func=student_view_command)


def validate_command(args: argparse.Namespace) -> int:
    from grader.rubric.load import RubricError, load_rubric  # the check ids import torch

    status = 0
    for name in args.files:
        try:
            rubric = load_rubric(name)
        except RubricError as err:
            print(err, file=sys.stderr)
            status = 2
            continue
        visibility = Counter(check.visibility for check in rubric.checks)
        shown = ", ".join(f"{count} {kind}" for kind, count in visibility.items())
        print(f"{name}: ok: {rubric.assignment_id}, {len(rubric.checks)} checks ({shown}), {rubric.max_score:g} points")
    return status


def student_view_command(args: argparse.Namespace) -> int:
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.rubric.load import dump_rubric, load_rubric

    try:
        view = load_rubric(args.file or INSTRUCTOR_RUBRIC).student_view()
    except ValueError as err:
        print(f"grader: {err}", file=sys.stderr)
        return 2
    print(dump_rubric(view), end="")
    return 0
