"""`grader export gradescope --out autograder.zip [--rubric PATH] [--wheel PATH]`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="package the grader for a platform (Gradescope)")
    targets = parser.add_subparsers(dest="export_target", metavar="TARGET", required=True)
    gs = targets.add_parser(
        "gradescope", help="write Gradescope's autograder zip: setup.sh, run_autograder, the wheel, rubric, secret")
    gs.add_argument("--out", required=True, metavar="ZIP", help="where to write the zip, e.g. autograder.zip")
    gs.add_argument("--rubric", metavar="PATH", help="instructor rubric (default: the shipped one)")
    gs.add_argument("--wheel", metavar="PATH", help="the project's wheel (default: built from this checkout)")
    gs.set_defaults(func=gradescope_command)


def gradescope_command(args: argparse.Namespace) -> int:
    from grader.export.gradescope import build_autograder
    from grader.export.wheel import WheelError
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.rubric import load_rubric

    rubric = load_rubric(args.rubric or INSTRUCTOR_RUBRIC)  # a RubricError exits 2 with FILE:LINE
    try:
        out, generated = build_autograder(Path(args.out), rubric_path=Path(args.rubric) if args.rubric else None,
                                          secret=os.environ.get(rubric.secret_env) or None,
                                          wheel=Path(args.wheel) if args.wheel else None)
    except (WheelError, OSError) as err:
        print(f"grader: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    if generated:
        print(f"grader: ${rubric.secret_env} is not set, so a new secret was generated and baked into {out}; "
              "keep this zip: another export seeds different hidden probes", file=sys.stderr)
    return 0
