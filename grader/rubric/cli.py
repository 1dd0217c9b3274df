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
