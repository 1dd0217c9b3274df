"""Verbs only: each parses its arguments and calls one function."""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import os
import sys
from pathlib import Path

from grader import paths


def plant_seed() -> None:
    """Before any rubric, secret or submission is read: the sandbox's servers are forked from
    this copy, so the process imports torch once and they hold nothing secret."""
    import gc

    import torch

    from grader.sandbox import seed

    # torch's objects live as long as the process: kept out of every later collection, the
    # grader's own imports and the seed's copy-on-write pages stop paying for them.
    gc.freeze()

    seed.plant()
    # This process is the command's own: the grader's expected values are tiny, threads only cost.
    torch.set_num_threads(1)


def _check(args) -> int:
    if not Path(args.file).is_file():
        print(f"grader: {args.file} is not a file; pass the path of your attention.py", file=sys.stderr)
        return 2
    plant_seed()
    from grader.grade import self_check

    if args.watch:
        if args.json:
            print("grader: --watch prints what changed after each save; use --json without it", file=sys.stderr)
            return 2
        return _watch(args)
    report = self_check(Path(args.file), hint_state_path=paths.hint_state(), spelled_out=_spelled_out(args))
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from grader.report.terminal import render_terminal

        render_terminal(report, audience="student")
    _write_extras([(report, "")], args.html, args.markdown, single=True, audience="student")
    return 0


def _spelled_out(args) -> int | None:
    """How many failing checks the student will read in full, so only their hints are spent: the
    terminal's screenful, or every one when a report that shows them all is written too."""
    from grader.report.terminal import DETAILS

    return None if args.json or args.html or args.markdown else DETAILS["student"]


def _line(text: str) -> str:
    from grader.report.terminal import printable

    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def _watch(args) -> int:
    from grader.grade import self_check
    from grader.report.terminal import render_terminal
    from grader.watch import watch

    def show(report) -> None:
        render_terminal(report, audience="student")
        _write_extras([(report, "")], args.html, args.markdown, single=True, audience="student")

    try:
        watch(Path(args.file), grade=lambda p: self_check(p, hint_state_path=paths.hint_state(),
                                                          spelled_out=_spelled_out(args)), show=show,
              say=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print("stopped watching", file=sys.stderr)
    return 0


def _grade(args) -> int:
    plant_seed()
    from grader.batch.names import handed_back
    from grader.batch.run import grade_class, parse_shard
    from grader.grade import secret_from_env
    from grader.intake.collect import InputError, collect
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.report.terminal import render_class_summary, render_terminal
    from grader.rubric import load_rubric

    rubric = load_rubric(args.rubric or INSTRUCTOR_RUBRIC)
    try:
        shard = parse_shard(args.shard) if args.shard else None
        intake = collect(args.files, roster=args.roster, as_student=bool(args.gradescope))
    except (InputError, ValueError) as err:
        print(f"grader: {_line(str(err))}", file=sys.stderr)
        return 2
    if not intake.students:
        print(f"grader: no submissions found in {_line(' '.join(args.files))}", file=sys.stderr)
        for s in intake.skipped:
            print(f"  skipped {_line(s.path)}: {_line(s.reason)}", file=sys.stderr)
        return 2
    if args.gradescope and len(intake.students) != 1:
        print("grader: --gradescope takes exactly one submission", file=sys.stderr)
        return 2
    secret = secret_from_env(rubric)
    if secret is None:
        print(f"grader: warning: ${rubric.secret_env} is not set; hidden probes are seeded by the file alone, "
              "so a student who has this grader could precompute them", file=sys.stderr)
    single = len(intake.students) == 1 and not args.json
    out = Path(args.out) if args.out else None
    named = [*map(Path, args.files), *([Path(args.roster)] if args.roster else [])]
    hidden = sorted({(p if p.is_dir() else p.parent).resolve() for p in named})  # classmates' files, the roster
    run = grade_class(intake, rubric=rubric, secret=secret, out=out, shard=shard, hidden=hidden,
                      progress=not args.json and not single, junit=Path(args.junit) if args.junit else None)
    reports = [r.report for r in run.results if r.report is not None]
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in reports], indent=1))
    elif single and reports:
        render_terminal(reports[0], audience="instructor")
    elif len(reports) > 1:
        render_class_summary(run.summary)
    graded = [(r.report, r.report_name) for r in run.results if r.report is not None]
    # A student's copy is titled with the file they handed in, not the instructor's path to the export.
    handback = [(handed_back(r.report, r.student), r.report_name) for r in run.results if r.report is not None]
    _write_extras(handback if args.audience == "student" else graded, args.html, args.markdown, single=False,
                  audience=args.audience, published=args.published)
    if out:  # one student-view report per student, ready to hand back; rebuilt from the store on a rerun
        from grader.report.markdown import render_markdown

        for report, stem in handback:
            paths.atomic_write_text(out / "feedback" / f"{stem}.md",
                                    render_markdown(report, audience="student", published=args.published),
                                    durable=False, skip_unchanged=True)
    if args.gradescope and reports:
        from grader.paths import atomic_write_text  # 0600, like every report
        from grader.report.gradescope import to_gradescope

        atomic_write_text(Path(args.gradescope), to_gradescope(reports[0]).model_dump_json(indent=1))
    if not args.json:
        _class_line(run, out, shard)
    return 1 if run.summary.grader_errors else 0


def _class_line(run, out, shard) -> None:
    """One line at the end of a class run, then every path that was not graded."""
    s = run.summary
    students = len(run.results)
    per = f", {run.seconds / students * 1000:.0f} ms per student" if students else ""
    part = f" (shard {shard[0]}/{shard[1]})" if shard else ""
    print(f"graded {students} students{part} in {run.seconds:.1f} s{per}: {run.graded_now} graded now, "
          f"{run.from_store} from the store, {s.no_submission} without a submission, {s.grader_errors} grader errors; "
          f"mean {s.mean:.1f}/{s.max_score:g}; {len(run.skipped)} paths skipped"
          + (f"; results in {_line(str(out))}" if out else ""), file=sys.stderr)
    for k in run.skipped[:20]:
        print(f"  skipped {_line(k.path)}: {_line(k.reason)}", file=sys.stderr)
    if len(run.skipped) > 20:
        print(f"  ... {len(run.skipped) - 20} more in skipped.csv" if out else
              f"  ... {len(run.skipped) - 20} more (use --out to list them in skipped.csv)", file=sys.stderr)


def _merge(args) -> int:
    from grader.batch.merge import merge_stores
    from grader.intake.collect import InputError

    try:
        run = merge_stores([Path(d) for d in args.dirs], Path(args.out), junit=Path(args.junit) if args.junit else None)
    except InputError as err:
        print(f"grader: {_line(str(err))}", file=sys.stderr)
        return 2
    s = run.summary
    print(f"merged {len(args.dirs)} stores: {len(run.results)} students, {s.submissions} graded, "
          f"mean {s.mean:.1f}/{s.max_score:g}; gradebook.csv and summary.json in {_line(args.out)}", file=sys.stderr)
    return 0


def _write_extras(reports, html, markdown, *, single: bool, audience: str, published: bool = False) -> None:
    """`reports` holds (report, file stem) pairs; with `single`, html and markdown are file paths.
    Renderers (and matplotlib, for the HTML pictures) are imported only when asked for."""
    for target, renderer, suffix in ((html, "html", ".html"), (markdown, "markdown", ".md")):
        if not target:
            continue
        writer = getattr(importlib.import_module(f"grader.report.{renderer}"), f"write_{renderer}")
        for report, stem in reports:
            path = Path(target) if single else Path(target) / (stem + suffix)
            writer(report, path, audience=audience, published=published)
            print(f"wrote {_line(str(path))}", file=sys.stderr)


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

    try:
        print(f"wrote {catalogue.write()}")
    except catalogue.CatalogueSourceMissing as exc:  # a student bundle: keep the shipped file as it is
        print(f"grader catalogue: {exc}", file=sys.stderr)
        return 2
    return 0


def _release(args) -> int:
    from grader.export.wheel import WheelError
    from grader.release import build_bundle
    from grader.rubric import load_rubric

    rubric = load_rubric(args.rubric) if args.rubric else None
    try:
        out = build_bundle(Path(args.out), rubric)
    except (ValueError, WheelError) as err:  # e.g. a rubric with nothing visible has no self-check to ship
        print(f"grader: {err}", file=sys.stderr)
        return 2
    for path in sorted(out.iterdir()):
        print(f"wrote {path}")
    return 0


# These verbs must start where torch is missing (a student's laptop, Windows): the rubric verbs import
# the checks, which import torch, so they are only registered when another verb is asked for.
TORCH_FREE_VERBS = frozenset({"quiz", "cards"})
# Verbs declared in this module: when one of them is asked for, the quiz's and the rubric's verbs
# (imports it never needs) are not registered, for a faster start.
OWN_VERBS = frozenset({"check", "grade", "merge", "demo", "schemas", "catalogue", "release"})


STUDENT_ABOUT = ("Check your causal_attention and SingleHead against the chapter on causal self-attention, "
                 "and practise with its quiz and recall cards.")
INSTRUCTOR_ABOUT = ("Grade causal self-attention submissions against the chapter: one file, a class export, or "
                    "a Gradescope autograder; serve the chapter's quiz and recall cards.")


def student_edition() -> bool:
    """Installed from the student's wheel (`release`): check, quiz and cards only."""
    return paths.STUDENT_EDITION.is_file()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    student = student_edition()
    prog = "grader" if student else "python -m grader"  # the student wheel installs a `grader` command
    parser = argparse.ArgumentParser(prog=prog, description=STUDENT_ABOUT if student else INSTRUCTOR_ABOUT)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="self-check your submission (visible checks only)")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report")
    p.add_argument("--markdown", metavar="PATH", help="also write the feedback as markdown")
    p.add_argument("--watch", action="store_true",
                   help="keep the sandbox warm and regrade on every save, printing only what changed")
    p.set_defaults(func=_check)

    if not student:  # a student's install (release) carries none of the instructor's verbs
        p = sub.add_parser("grade", help="grade submissions with every check (instructor)")
        p.add_argument("files", nargs="+",
                       help="submissions (.py, .ipynb, .zip) or class folders as Canvas, Moodle or Gradescope export them")
        p.add_argument("--rubric", metavar="PATH",
                       help="instructor rubric YAML (default: the shipped one; `rubric validate PATH` checks it)")
        p.add_argument("--out", metavar="DIR",
                       help="keep results in DIR/store.sqlite3 as they are graded (rerun to resume), write "
                            "gradebook.csv, summary.json, skipped.csv and reports/")
        p.add_argument("--roster", metavar="CSV", help="class roster (ID, Student, Email, Section columns): names, "
                       "and a row for each student who handed in nothing")
        p.add_argument("--shard", metavar="K/N", help="grade only the K-th of N deterministic parts of the class")
        p.add_argument("--junit", metavar="PATH", help="also write JUnit XML, one testcase per check")
        p.add_argument("--json", action="store_true", help="print one JSON array of reports, nothing else")
        p.add_argument("--html", metavar="DIR", help="write one HTML report per submission")
        p.add_argument("--markdown", metavar="DIR", help="write one markdown report per submission")
        p.add_argument("--audience", choices=("instructor", "student"), default="instructor",
                       help="who --html and --markdown are for: 'student' follows each check's visibility "
                            "(hidden checks absent), 'instructor' shows every check and marks the hidden ones")
        p.add_argument("--published", action="store_true",
                       help="results are released: student views also show after_due_date and after_published checks")
        p.add_argument("--gradescope", metavar="PATH",
                       help="write Gradescope's results.json for the single submission (a folder named is "
                            "one student's submission)")
        p.set_defaults(func=_grade)

        p = sub.add_parser("merge", help="combine the --out folders of shards into one gradebook and summary")
        p.add_argument("dirs", nargs="+", metavar="DIR")
        p.add_argument("--out", metavar="DIR", required=True)
        p.add_argument("--junit", metavar="PATH", help="also write JUnit XML for the whole class")
        p.set_defaults(func=_merge)

        sub.add_parser("demo", help="grade the bundled example and show the feedback").set_defaults(func=_demo)
        sub.add_parser("schemas", help="regenerate the JSON Schemas").set_defaults(func=_schemas)
        sub.add_parser("catalogue", help="rebuild grader/data/catalogue.json from reference/mutants"
                       ).set_defaults(func=_catalogue)
        p = sub.add_parser("release", help="build the student bundle (no solution inside)")
        p.add_argument("--out", default="build/student-bundle")
        p.add_argument("--rubric", metavar="PATH",
                       help="instructor rubric whose visible checks become the students' self-check (default: the shipped one)")
        p.set_defaults(func=_release)

    if command in OWN_VERBS and not student:
        return parser
    from grader.quiz.cli import register as register_quiz

    register_quiz(sub)
    if student:  # no rubric or export verbs either: their modules are not in the student's wheel
        return parser
    if command not in TORCH_FREE_VERBS:
        from grader.rubric import register as register_rubric

        register_rubric(sub)
    from grader.export.cli import register as register_export

    register_export(sub)
    return parser


def _torch_requirement() -> str:
    """The installed grader's own torch range (pyproject.toml), so the install line cannot drift from it."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        return next((r.split(";")[0].strip() for r in requires("attention-grader") or () if r.startswith("torch")),
                    "torch")
    except PackageNotFoundError:
        return "torch"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(next((a for a in argv if not a.startswith("-")), None)).parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("grader: interrupted; reports already saved with --out are kept, rerun to resume", file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] != "torch":
            raise
        # The quiz and the cards run without torch; grading code cannot.
        print(f"grader: {args.command} needs torch, which is not installed here; install its CPU build with "
              f'pip install "{_torch_requirement()}" --index-url {paths.TORCH_CPU_INDEX}', file=sys.stderr)
        return 2
    except Exception as err:
        # Looked up, not imported: the quiz and the cards must run without the sandbox (torch, resource).
        # A verb that can raise these errors has already imported their modules.
        rubric_error = getattr(sys.modules.get("grader.rubric.load"), "RubricError", ())
        sandbox_error = getattr(sys.modules.get("grader.sandbox.models"), "SandboxError", ())
        if isinstance(err, rubric_error):
            print(err, file=sys.stderr)
            return 2
        if isinstance(err, sandbox_error):
            print(f"grader: the sandbox could not run: {err}", file=sys.stderr)
            return 1
        raise
    finally:
        seed = sys.modules.get("grader.sandbox.seed")  # only verbs that grade planted one
        if seed is not None:
            seed.uproot()


def run() -> None:
    """`python -m grader` and the `grader` command: main, then leave without the interpreter's
    teardown. The exit handlers run first (a notebook sandbox's close, logging) and the output is
    flushed; what is skipped is the teardown of torch's modules, which costs a cold run about as
    much as grading one file and changes nothing anyone can see."""
    code = main()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that went away (`| head`): nothing left to tell it
        code = code or 1
    os._exit(code)
