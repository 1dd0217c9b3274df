"""Grading one submission through the warm sandbox vs. one fresh `python -c "import torch"`.

Both are measured here, side by side, in one run. The warm figure is a whole `grade_file` on
the reference solution: every probe sent, every reply checked, the rubric scored, the report
built. Prints the median of each and their ratio (the README quotes it).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.grade import grade_file  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402

REFERENCE = ROOT / "reference" / "attention.py"


def fresh_import(n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - t0)
    return times


def warm_grades(sb: Sandbox, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        report = grade_file(REFERENCE, sandbox=sb)
        times.append(time.perf_counter() - t0)
        if report.score != report.max_score:
            sys.exit(f"the reference scored {report.score}/{report.max_score}: the benchmark would be meaningless")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", type=int, default=5, help="fresh interpreters to time")
    parser.add_argument("--warm", type=int, default=30, help="warm gradings to time")
    args = parser.parse_args()
    with Sandbox() as sb:
        warm_grades(sb, 2)  # first calls pay one-off lazy imports in the grader itself
        # Interleaved halves, so a noisy neighbour hurts both sides alike.
        fresh, warm = [], []
        for _ in range(2):
            fresh += fresh_import((args.fresh + 1) // 2)
            warm += warm_grades(sb, (args.warm + 1) // 2)
        isolation = sb.isolation
    f, w = statistics.median(fresh), statistics.median(warm)
    print(f"fresh `python -c 'import torch'`: median {f * 1000:.0f} ms over {len(fresh)} runs")
    print(f"warm sandbox, one full grade ({isolation}): median {w * 1000:.1f} ms over {len(warm)} runs")
    print(f"ratio fresh/warm: {f / w:.1f}x (target >= 50x)")


if __name__ == "__main__":
    main()
