"""What `run_autograder` runs inside Gradescope: grade /autograder/submission/, write results.json.

Usage: python -m grader.export.autograder [ROOT]   (ROOT defaults to /autograder)

The secret is read from source/secret here, never put in an environment a process could read. The
whole ROOT (source with the rubric and the secret, results) is hidden from the submission's sandbox.
Whatever happens, results.json is written: a missing file or a broken setup gets score 0 and says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grader.paths import atomic_write_text
from grader.report.gradescope import GradescopeResults, to_gradescope

SUFFIXES = (".py",)


def find_submission(folder: Path, names: tuple[str, ...]) -> tuple[Path | None, str]:
    """The file that defines the graded names; attention.py first when several do. Returns (file, why not)."""
    if not folder.is_dir():
        return None, f"There is no submission folder ({folder})."
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    if not files:
        return None, "No Python file was submitted: upload attention.py."

    def defines(path: Path) -> bool:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        return any(f"def {n}" in text or f"class {n}" in text for n in names)

    defining = [p for p in files if defines(p)] or files
    defining.sort(key=lambda p: (p.name != "attention.py", len(p.parts), str(p)))
    return defining[0], ""


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
            atomic_write_text(results, _zero(f"The autograder is misconfigured; tell your instructor.\n\n{err}")
                              .model_dump_json(indent=1))
            print(f"grader: {err}", file=sys.stderr)
            return 1
        submission, why = find_submission(root / "submission", rubric.entry_points)
        if submission is None:
            atomic_write_text(results, _zero(why).model_dump_json(indent=1))
            return 0
        with Sandbox(quiet=True) as sandbox:
            report = grade_file(submission, sandbox=sandbox, rubric=rubric, secret=secret or None,
                                audience="instructor", hidden_paths=[root])
        report = report.model_copy(update={"submission": str(submission.relative_to(root / "submission"))})
        atomic_write_text(results, to_gradescope(report).model_dump_json(indent=1))
        print(f"graded {report.submission}: {report.score:g}/{report.max_score:g} ({report.runtime.isolation})")
        return 0
    except Exception as err:  # noqa: BLE001 - Gradescope shows a missing results.json as a bare failure
        atomic_write_text(results, _zero(f"The grader failed ({type(err).__name__}); tell your instructor.")
                          .model_dump_json(indent=1))
        raise


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run(Path(argv[0] if argv else "/autograder"))


if __name__ == "__main__":
    raise SystemExit(main())
