"""Every verdict the grader gives on a fixed corpus, written to JSON: the guard for a speed change.

A change that only makes grading cheaper must leave every report the same. This grades, in this
process, the reference, the mutants (`timeout` and `memory_limit` left out: they spend seconds by
design), the correct variants, the real-code twins and the example, twice each: as an instructor's
grade (instructor rubric, a fixed secret, hidden probes) and as a student's self-check. It writes
each whole report (scores per check, findings, hints, diagnoses and their messages, pictures) with
the one field that is timing (`runtime.wall_s`) dropped. Dump before and after a change, then diff:

    .venv/bin/python bench/verdict_dump.py /tmp/before.json   # on the untouched tree
    .venv/bin/python bench/verdict_dump.py /tmp/after.json
    diff /tmp/before.json /tmp/after.json && echo identical
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.batch.run import grade_files  # noqa: E402
from grader.grade import self_check  # noqa: E402
from grader.process import plant_seed  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402

SECRET = "verdict-dump-secret"
SLOW_BY_DESIGN = ("timeout.py", "memory_limit.py")


def corpus() -> list[Path]:
    real = sorted(p for p in (ROOT / "tests" / "real").glob("*.py") if p.name not in ("conftest.py", "test_real.py"))
    return [ROOT / "reference" / "attention.py",
            *sorted(p for p in (ROOT / "reference" / "mutants").glob("*.py") if p.name not in SLOW_BY_DESIGN),
            *sorted((ROOT / "tests" / "variants").glob("*.py")), *real, ROOT / "examples" / "submission.py"]


def verdict(report) -> dict:
    data = report.model_dump(mode="json")
    data["runtime"].pop("wall_s")  # the only timing in a report
    data["submission"] = str(Path(data["submission"]).relative_to(ROOT))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file to write")
    args = parser.parse_args()
    plant_seed(huge_pages=True)  # as a class's command does: one torch thread, servers forked from a clean copy
    files = corpus()
    t0 = time.perf_counter()
    with Sandbox() as sb, Sandbox() as second, Sandbox(quiet=True) as student:
        graded = grade_files(files, secret=SECRET, sandboxes=[sb, second])
        checked = [self_check(p, sandbox=student, hint_state_path=None) for p in files]
    dump = {str(p.relative_to(ROOT)): {"grade": verdict(g), "self_check": verdict(c)}
            for p, g, c in zip(files, graded, checked, strict=True)}
    args.out.write_text(json.dumps(dump, indent=1, sort_keys=True) + "\n")
    print(f"{len(files)} files, {2 * len(files)} reports in {time.perf_counter() - t0:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
