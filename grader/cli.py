"""Verbs only: each parses its arguments and calls one function."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader import paths
from grader.process import leave, plant_seed


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
    _record_cards(report)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from grader.report.terminal import render_terminal

        render_terminal(report, audience="student")
    _write_extras([(report, "")], args.html, args.markdown, single=True, audience="student")
    return _below(args.fail_under, [(report.score, report.max_score, "your self-check")])


def _below(threshold: float | None, totals: list[tuple[float | None, float, str]]) -> int:
    """--fail-under: exit 1 when a total (None: nothing graded) is under `threshold` percent of its maximum, so a
    CI step (GitHub Classroom awards a run-command test's points by its exit code) follows the score."""
    if threshold is None:
        return 0
    from grader.report.view import points_text

    low = [(s, m, who) for s, m, who in totals if s is None or (m > 0 and s / m * 100 < threshold - 1e-9)]
    for s, m, who in low[:20]:
        got = "nothing graded" if s is None else f"{points_text(s, m)} ({s / m:.0%})"
        print(f"grader: {_line(who)}: {got}, under --fail-under {threshold:g}%", file=sys.stderr)
    return 1 if low else 0


def _percent(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("a percentage of the maximum score, between 0 and 100")
    return value


def _record_cards(report) -> None:
    """The recall cards of what this check found, for `grader cards` to review first."""
    from grader.quiz.cards import recent_path, record_recent

    record_recent([c for d in report.diagnoses for c in d.cards], recent_path())


def _spelled_out(args) -> int | None:
    """How many failing checks the student will read in full, so only their hints are spent: the
    terminal's screenful, or every one when a report that shows them all is written too."""
    from grader.report.terminal import DETAILS

    return None if args.json or args.html or args.markdown else DETAILS["student"]


def _line(text: str) -> str:
    from grader.report.terminal import printable

    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def _watch(args) -> int:
    import signal

    from grader.grade import self_check
    from grader.report.terminal import render_terminal
    from grader.watch import watch

    def show(report) -> None:
        render_terminal(report, audience="student")
        _write_extras([(report, "")], args.html, args.markdown, single=True, audience="student")

    # Ctrl-C is how a watch ends, as it says. A shell without job control starts a background job with
    # SIGINT ignored (`make test &`, a CI step), the ignoring is inherited, and the watcher ran until killed.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        watch(Path(args.file), grade=lambda p: self_check(p, hint_state_path=paths.hint_state(),
                                                          spelled_out=_spelled_out(args)), show=show,
              say=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print("stopped watching", file=sys.stderr)
    return 0


def _a_class(files: list[str]) -> bool:
    """Whether a grade names many submissions (an export, a folder, several files): read from the names
    alone, since nothing may be read before the seed is planted."""
    return len(files) > 1 or not (files[0].endswith((".py", ".ipynb")) and Path(files[0]).is_file())


def _grade(args) -> int:
    plant_seed(huge_pages=_a_class(args.files) and not args.gradescope)
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
        lms = _lms(args)
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
    if args.jobs is None:
        from grader.batch.cores import usable_cores

        args.jobs = usable_cores()
    run = grade_class(intake, rubric=rubric, secret=secret, out=out, shard=shard, hidden=hidden,
                      progress=not args.json and not single, junit=Path(args.junit) if args.junit else None,
                      published=args.published, lms=lms,  # feedback/ (with --out) shows the grade only once published
                      jobs=args.jobs)
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
    if args.gradescope and reports:
        from grader.report.gradescope import write_results

        write_results(reports[0], Path(args.gradescope))
    if not args.json:
        _class_line(run, out, shard)
    _left_out(run)
    if run.summary.grader_errors:
        return 1
    from grader.batch.names import student_label

    return _below(args.fail_under, [(r.report.score if r.report else None, r.report.max_score if r.report else 0.0,
                                     student_label(r.student)) for r in run.results])


def _lms(args):
    """--lms with its --assignment, --roster and --bom, checked before anything is graded (InputError)."""
    if not args.lms:
        if args.bom or args.assignment:
            raise ValueError("--bom and --assignment shape the --lms files: add --lms canvas or --lms moodle")
        return None
    if not getattr(args, "out", None):
        raise ValueError("--lms writes its files beside the gradebook: add --out DIR")
    from grader.batch.lms import lms_export

    return lms_export(args.lms, assignment=args.assignment or "", roster=args.roster, bom=args.bom)


def _left_out(run) -> None:
    """What the instructor must act on before importing: rows the import files could not carry, overrides
    no longer applied, and who moved since the last run."""
    for line in run.lms_left_out:
        print(f"  not in the import files: {_line(line)}", file=sys.stderr)
    for line in run.stale_overrides:
        print(f"  override not applied: {_line(line)}", file=sys.stderr)
    if run.changes:
        from grader.batch.names import student_label
        from grader.report.view import score_text

        print(f"{len(run.changes)} student(s) moved since the last run (changes.csv):", file=sys.stderr)
        for m in run.changes[:20]:
            before, after = (score_text(x) if x is not None else "no grade" for x in (m.before, m.after))
            print(f"  {_line(student_label(m.student.student))}: {before} -> {after} ({m.why})",
                  file=sys.stderr)


def _class_line(run, out, shard) -> None:
    """One line at the end of a class run, then every path that was not graded."""
    from grader.report.view import score_text

    s = run.summary
    students = len(run.results)
    per = f", {run.seconds / students * 1000:.0f} ms per student" if students else ""
    part = f" (shard {shard[0]}/{shard[1]})" if shard else ""
    jobs = f" by {run.jobs} judging processes" if run.jobs > 1 else ""
    # Each status counted in students, so the four add up to the class: the roster's rows and the files of
    # students not on it (a source two students share is graded once: "files" counts those).
    on = [r.student.on_roster for r in run.results]
    who = f" ({on.count(True)} on the roster, {on.count(False)} not on it)" if None not in on and on else ""
    print(f"graded {students} students{who}{part} in {run.seconds:.1f} s{per}{jobs}: {s.submissions} graded "
          f"({s.submissions - run.from_store} graded now from {run.graded_now} distinct file(s), {run.from_store} "
          f"from the store), {s.ungradable} ungradable, {s.no_submission} without a submission, "
          f"{s.grader_errors} grader errors; {len(s.review)} to review (review.csv); "
          f"mean {score_text(s.mean)}/{score_text(s.max_score)}; {len(run.skipped)} paths skipped"
          + (f"; results in {_line(str(out))}" if out else ""), file=sys.stderr)
    for k in run.skipped[:20]:
        print(f"  skipped {_line(k.path)}: {_line(k.reason)}", file=sys.stderr)
    if len(run.skipped) > 20:
        print(f"  ... {len(run.skipped) - 20} more in skipped.csv" if out else
              f"  ... {len(run.skipped) - 20} more (use --out to list them in skipped.csv)", file=sys.stderr)


def _merge(args) -> int:
    from grader.batch.merge import merge_stores
    from grader.intake.collect import InputError
    from grader.report.view import score_text

    try:
        run = merge_stores([Path(d) for d in args.dirs], Path(args.out), junit=Path(args.junit) if args.junit else None,
                           published=True if args.published else None, lms=_lms(args))
    except (InputError, ValueError) as err:  # one problem a line
        print("grader: " + "\n".join(_line(line) for line in str(err).splitlines()), file=sys.stderr)
        return 2
    s = run.summary
    print(f"merged {len(args.dirs)} stores: {len(run.results)} students, {s.submissions} graded, "
          f"mean {score_text(s.mean)}/{score_text(s.max_score)}; gradebook.csv, summary.json and feedback/ in {_line(args.out)}", file=sys.stderr)
    _left_out(run)
    return 0


def _add_lms_options(p, *, roster: bool) -> None:
    p.add_argument("--lms", choices=("canvas", "moodle"),
                   help="also write the platform's import files beside gradebook.csv: canvas-import.csv and "
                        "canvas-feedback.zip, or moodle-grading-worksheet.csv and moodle-feedback.zip (docs/instructors.md)")
    p.add_argument("--assignment", metavar="TITLE", help="--lms canvas: the assignment column's title (default: "
                   "the roster's one assignment column, when the roster is Canvas's gradebook export)")
    p.add_argument("--bom", action="store_true", help="start each CSV with a UTF-8 byte order mark, for Excel")
    if roster:
        p.add_argument("--roster", metavar="CSV", help="--lms moodle: the grading worksheet downloaded from the "
                       "assignment, written back with grades; --lms canvas: Canvas's gradebook export")


def _serve(args) -> int:
    from grader.serve.run import print_tokens, serve

    if args.action == "tokens":
        return print_tokens(Path(args.course), base_url=args.base_url)
    return serve(Path(args.course), host=args.host, port=args.port, workers=args.workers,
                 before_secret=lambda: plant_seed(huge_pages=True))  # a service grades many files


def _override(args) -> int:
    from grader.batch.merge import rewrite_outputs
    from grader.batch.names import student_label
    from grader.batch.overrides import above_band, apply_overrides, as_reported, record_override
    from grader.intake.collect import InputError
    from grader.report.view import score_text

    out = Path(args.out)
    if (args.points is None) == bool(args.check):
        print("grader: --check ID takes --points N (and --score N takes neither)", file=sys.stderr)
        return 2
    before = as_reported(out)  # so the rewrite's changes.csv says who the override moved
    try:
        r, o = record_override(out, args.student, reason=args.reason, score=args.score, check=args.check or "",
                               points=args.points)
    except InputError as err:
        print(f"grader: {_line(str(err))}", file=sys.stderr)
        return 2
    what = f"{o.check}: {score_text(o.points)} points" if o.check else f"total: {score_text(o.points)}"
    print(f"override recorded for {_line(student_label(r.student))} ({what}), for the submission "
          f"{o.source_sha256[:12]}", file=sys.stderr)
    adjusted = r.model_copy(deep=True)
    apply_overrides([adjusted], [o])
    if note := above_band(adjusted.report):  # applied as given: an explicit decision, said where it is read
        print(f"note: {_line(note)} (said in Notes, changes.csv and the summary)", file=sys.stderr)
    try:  # the outputs now, as the next run would write them
        rewritten = rewrite_outputs(out, before)
    except InputError:  # one shard of a class: `merge` writes the class's outputs with it
        print("applied at this shard's next run and at the merge", file=sys.stderr)
    else:
        print(f"gradebook.csv, summary, changes.csv and feedback/ in {_line(str(out))} rewritten with it",
              file=sys.stderr)
        _left_out(rewritten)
    return 0


def _write_extras(reports, html, markdown, *, single: bool, audience: str, published: bool = False) -> None:
    """--html and --markdown, written by the report's one path (grader/report/formats.py), which
    imports each renderer (and matplotlib, for the HTML pictures) only when asked for."""
    if not (html or markdown):
        return
    from grader.report.formats import write_reports

    for path in write_reports(reports, {"html": html, "markdown": markdown}, single=single, audience=audience,
                              published=published):
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
OWN_VERBS = frozenset({"check", "grade", "merge", "override", "demo", "schemas", "catalogue", "release"})


STUDENT_ABOUT = ("Check your causal_attention and SingleHead against the chapter on causal self-attention, "
                 "and practise with its quiz and recall cards.")
INSTRUCTOR_ABOUT = ("Grade causal self-attention submissions against the chapter: one file, a class export, or "
                    "a Gradescope autograder; serve the chapter's quiz and recall cards.")


def student_edition() -> bool:
    """Installed from the student's wheel (`release`): check, quiz and cards only."""
    return paths.STUDENT_EDITION.is_file()


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of processes, 1 or more, not {text!r}")
    return int(text)


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
    p.add_argument("--fail-under", type=_percent, metavar="PERCENT",
                   help="exit 1 when the score is under PERCENT of the points shown (for a CI step)")
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
        p.add_argument("--jobs", metavar="N", type=_positive,
                       help="judging processes, each with its own sandboxes (default: the cores this process may "
                            "use, from its CPU affinity and cgroup quota); the gradebook is the same for any N")
        p.add_argument("--json", action="store_true", help="print one JSON array of reports, nothing else")
        p.add_argument("--html", metavar="DIR", help="write one HTML report per submission")
        p.add_argument("--markdown", metavar="DIR", help="write one markdown report per submission")
        p.add_argument("--audience", choices=("instructor", "student"), default="instructor",
                       help="who --html and --markdown are for: 'student' follows each check's visibility "
                            "(hidden checks absent), 'instructor' shows every check and marks the hidden ones")
        p.add_argument("--published", action="store_true",
                       help="results are released: every student view (feedback/, --audience student, the --lms "
                            "comments and zips) shows the grade and the after_due_date and after_published checks")
        p.add_argument("--gradescope", metavar="PATH",
                       help="write Gradescope's results.json for the single submission (a folder named is "
                            "one student's submission)")
        p.add_argument("--fail-under", type=_percent, metavar="PERCENT",
                       help="exit 1 when a student's score is under PERCENT of the maximum, or nothing was graded")
        _add_lms_options(p, roster=False)
        p.set_defaults(func=_grade)

        p = sub.add_parser("merge", help="combine the --out folders of shards into one gradebook and summary")
        p.add_argument("dirs", nargs="+", metavar="DIR")
        p.add_argument("--out", metavar="DIR", required=True)
        p.add_argument("--junit", metavar="PATH", help="also write JUnit XML for the whole class")
        p.add_argument("--published", action="store_true",
                       help="results are released: feedback/ shows each student's grade (default: as the shards were graded)")
        _add_lms_options(p, roster=True)
        p.set_defaults(func=_merge)

        p = sub.add_parser("override", help="adjust a student's total or one check, with a reason, kept on every rerun")
        p.add_argument("out", metavar="OUT", help="the --out folder of `grade` (or of `merge`)")
        p.add_argument("student", metavar="STUDENT", help="the student's ID, e-mail or key (as in gradebook.csv)")
        what = p.add_mutually_exclusive_group(required=True)
        what.add_argument("--score", type=float, metavar="N", help="set the total")
        what.add_argument("--check", metavar="ID", help="set one check's points (with --points)")
        p.add_argument("--points", type=float, metavar="N")
        p.add_argument("--reason", required=True, help="why: shown to the student with the adjustment")
        p.set_defaults(func=_override)

        p = sub.add_parser("serve", help="the course service: students upload in the browser (instructor)")
        p.add_argument("action", nargs="?", choices=["tokens"], help="tokens: print each student's sign-in link")
        p.add_argument("--course", required=True, metavar="COURSE.yaml")
        p.add_argument("--host", default="127.0.0.1")
        p.add_argument("--port", type=int, default=8000)
        p.add_argument("--base-url", default="http://127.0.0.1:8000", help="for the links `serve tokens` prints")
        p.add_argument("--workers", type=_positive, metavar="N", help="grading processes (default: the course file's "
                       "workers:, else the cores this process may use)")
        p.set_defaults(func=_serve)

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
    much as grading one file and changes nothing anyone can see (grader.process.leave)."""
    leave(main())
