"""What `run_autograder` runs inside Gradescope: grade /autograder/submission/, write results.json.

Usage: python -m grader.export.autograder [ROOT]   (ROOT defaults to /autograder)

The secret is read from source/secret here, never put in an environment a process could read. The
whole ROOT (source with the rubric and the secret, results) is hidden from the submission's sandbox.
Whatever happens, results.json is written: a missing file or a broken setup gets score 0 and says so.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from grader.paths import atomic_write_bytes
from grader.report.gradescope import GradescopeResults, write_results


def find_submission(folder: Path, entries: tuple[str, ...]) -> tuple[bytes | None, str, str]:
    """What the class run's intake makes of the folder as one student's submission (.py, .ipynb, .zip,
    helper modules packed in): (source to run, the file as found, why there is none)."""
    from grader.intake.collect import InputError, collect

    if not folder.is_dir():
        return None, "", f"There is no submission folder ({folder})."
    try:
        intake = collect([folder], entries=entries, as_student=True)
    except InputError as err:
        return None, "", f"The submission could not be read: {err}"
    ready = [p for p in intake.students if p.source is not None]
    if not ready:
        from grader.report.markdown import md_escape  # names from the student's own archive: inert text

        why = "; ".join(md_escape(f"{Path(s.path).name}: {s.reason}") for s in intake.skipped[:5])
        return None, "", "No gradable file was submitted: upload attention.py" + (f" ({why})." if why else ".")
    found = ready[0].student.submission
    inside = str(folder).rstrip("/") + "/"
    # As the student sees it: relative to what they uploaded (hw.zip/hw/attention.py), never our paths.
    return ready[0].source, found[len(inside):] if found.startswith(inside) else Path(found).name, ""


def _zero(message: str) -> GradescopeResults:
    return GradescopeResults(score=0.0, output=message, execution_time=0.0, tests=[])


def run(root: Path) -> int:
    results = root / "results" / "results.json"
    try:
        from grader.grade import grade_file
        from grader.rubric import RubricError, load_rubric
        from grader.sandbox import Sandbox

        try:
            rubric = load_rubric(root / "source" / "rubric.yaml")
            secret = (root / "source" / "secret").read_text(encoding="utf-8").strip()
        except (RubricError, OSError) as err:
            write_results(_zero(f"The autograder is misconfigured; tell your instructor.\n\n{err}"), results)
            print(f"grader: {err}", file=sys.stderr)
            return 1
        source, found, why = find_submission(root / "submission", rubric.entry_points)
        if source is None:
            write_results(_zero(why), results)
            return 0
        with tempfile.TemporaryDirectory(prefix="grader-autograder-") as staging:
            staged = Path(staging) / "attention.py"  # a notebook or zip is graded as the source intake made of it
            atomic_write_bytes(staged, source)
            with Sandbox(quiet=True) as sandbox:
                report = grade_file(staged, sandbox=sandbox, rubric=rubric, secret=secret or None,
                                    audience="instructor", hidden_paths=[root, Path(staging)])
        report = report.model_copy(update={"submission": found})
        write_results(report, results)
        print(f"graded {report.submission}: {report.score:g}/{report.max_score:g} ({report.runtime.isolation})")
        return 0
    except Exception as err:  # noqa: BLE001 - Gradescope shows a missing results.json as a bare failure
        write_results(_zero(f"The grader failed ({type(err).__name__}); tell your instructor."), results)
        raise


def main(argv: list[str] | None = None) -> int:
    """The command `run_autograder` execs: the seed is planted first, as `grade FILE` plants it, so the
    sandbox's server is forked from this process (torch imported once per container), not started as a
    second interpreter; and before the rubric or the secret is read, so the seed holds neither."""
    from grader.process import plant_seed
    from grader.sandbox import seed

    argv = sys.argv[1:] if argv is None else argv
    plant_seed()
    try:
        return run(Path(argv[0] if argv else "/autograder"))
    finally:
        seed.uproot()


if __name__ == "__main__":
    from grader.process import leave

    leave(main())
