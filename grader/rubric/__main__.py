"""`python -m grader.rubric validate FILE...`, the same verb as `python -m grader rubric validate`."""

import argparse
import sys

from grader.rubric.cli import register


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.rubric")
    register(parser.add_subparsers(dest="command", required=True))
    # Accept both `validate FILE` and `rubric validate FILE`.
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv if argv[:1] == ["rubric"] else ["rubric", *argv])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
