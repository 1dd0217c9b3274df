"""Verbs only: each parses its arguments and calls one function."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader import paths


def _check(args) -> int:
    from grader.grade import self_check
    from grader.report.terminal import render_terminal

    if not Path(args.file).is_file():
        print(f"grader: {args.file} is not a file; pass the path of your attention.py", file=sys.stderr)
        return 2
    report = self_check(Path(args.file), hint_state_path=paths.hint_state())
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        render_terminal(report, audience="student")
    _write_extras([report], args.html, args.markdown, single=True, audience="student")
    return 0


def _grade(args) -> int:
    from grader.batch import expand, grade_class, summarize
    from grader.grade import INSTRUCTOR_RUBRIC, secret_from_env
    from grader.report.terminal import render_class_summary, render_terminal
    from grader.rubric import load_rubric

    rubric = load_rubric(args.rubric or INSTRUCTOR_RUBRIC)
    secret = secret_from_env(rubric)
    if secret is None:
        print(f"grader: warning: ${rubric.secret_env} is not set; hidden probes are seeded by the file alone, "
              "so a student who has this grader could precompute them", file=sys.stderr)
    paths = expand(args.files)
    if not paths:
        print(f"grader: no submissions found in {' '.join(args.files)}", file=sys.stderr)
        return 2
    if args.gradescope and len(paths) != 1:
        print("grader: --gradescope takes exactly one submission", file=sys.stderr)
        return 2
    done = iter(range(1, len(paths) + 1))

    def progress(report) -> None:
        if args.json or len(paths) > 1:
            top = report.diagnoses[0].id if report.diagnoses else ""
            print(f"[{next(done)}/{len(paths)}] {report.submission}  {report.score:g}/{report.max_score:g}  {top}",
                  file=sys.stderr)
        else:
            render_terminal(report, audience="instructor")

    out = Path(args.out) if args.out else None
    reports = grade_class(paths, rubric=rubric, secret=secret, out=out, on_report=progress)
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in reports], indent=1))
    elif len(reports) > 1:
        render_class_summary(summarize(reports))
    _write_extras(reports, args.html, args.markdown, single=False, audience="instructor")
    if args.gradescope:
        from grader.report.gradescope import to_gradescope

        Path(args.gradescope).parent.mkdir(parents=True, exist_ok=True)
        Path(args.gradescope).write_text(to_gradescope(reports[0]).model_dump_json(indent=1))
    if out:
        print(f"reports, gradebook.csv and summary.json in {out}", file=sys.stderr)
    return 0


def _write_extras(reports, html, markdown, *, single: bool, audience: str) -> None:
    from grader.report.html import write_html
    from grader.report.markdown import write_markdown
    from grader.report.view import report_filename

    for target, writer, suffix in ((html, write_html, ".html"), (markdown, write_markdown, ".md")):
        if not target:
            continue
        for report in reports:
            path = Path(target) if single else Path(target) / report_filename(report.submission, suffix)
            path.parent.mkdir(parents=True, exist_ok=True)
            writer(report, path, audience=audience)
            print(f"wrote {path}", file=sys.stderr)


def _demo(args) -> int:
    from grader.demo import run_demo

    return run_demo()


def _schemas(args) -> int:
    from grader.schemas import write_all

    for path in write_all():
        print(f"wrote {path}")
    return 0


def _catalogue(args) -> int:
    from grader.diagnosis import catalogue

    catalogue.write()
    print(f"wrote {catalogue.DATA}")
    return 0


def _release(args) -> int:
    from grader.release import build_bundle

    print(f"wrote {build_bundle(Path(args.out))}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="self-check your submission (visible checks only)")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report")
    p.add_argument("--markdown", metavar="PATH", help="also write the feedback as markdown")
    p.set_defaults(func=_check)

    p = sub.add_parser("grade", help="grade submissions with every check (instructor)")
    p.add_argument("files", nargs="+", help="submission files, or folders to search for .py files")
    p.add_argument("--rubric", metavar="PATH")
    p.add_argument("--out", metavar="DIR",
                   help="save each report as it is graded, plus gradebook.csv and summary.json; rerun to resume")
    p.add_argument("--json", action="store_true", help="print one JSON array of reports, nothing else")
    p.add_argument("--html", metavar="DIR", help="write one HTML report per submission")
    p.add_argument("--markdown", metavar="DIR", help="write one markdown report per submission")
    p.add_argument("--gradescope", metavar="PATH",
                   help="write Gradescope's results.json for the (single) submission")
    p.set_defaults(func=_grade)

    sub.add_parser("demo", help="grade the bundled example and show the feedback").set_defaults(func=_demo)
    sub.add_parser("schemas", help="regenerate the JSON Schemas").set_defaults(func=_schemas)
    sub.add_parser("catalogue", help="rebuild grader/data/catalogue.json from reference/mutants"
                   ).set_defaults(func=_catalogue)
    p = sub.add_parser("release", help="build the student bundle (no solution inside)")
    p.add_argument("--out", default="build/student-bundle")
    p.set_defaults(func=_release)

    from grader.quiz.cli import register as register_quiz
    from grader.rubric import register as register_rubric

    register_rubric(sub)
    register_quiz(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("grader: interrupted; reports already saved with --out are kept, rerun to resume", file=sys.stderr)
        return 130
    except Exception as err:
        # Looked up, not imported: the quiz and the cards must run without the sandbox (torch, resource).
        # A verb that can raise these errors has already imported their modules.
        rubric_error = getattr(sys.modules.get("grader.rubric"), "RubricError", ())
        sandbox_error = getattr(sys.modules.get("grader.sandbox.models"), "SandboxError", ())
        if isinstance(err, rubric_error):
            print(err, file=sys.stderr)
            return 2
        if isinstance(err, sandbox_error):
            print(f"grader: the sandbox could not run: {err}", file=sys.stderr)
            return 1
        raise
