"""The figures issue 24's "Done when" names, gathered from the benchmarks of one `make bench` run and
printed side by side: each benchmark adds its own to a JSON file (`--figures FILE`), and
`python bench/figures.py FILE` prints them against their targets. Nothing here times anything."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# (key, what, target as a ratio bound, how the ratio reads)
TARGETS = (
    # Machine-wide CPU (/proc/stat): on a shared machine it counts the neighbours too.
    ("class_cpu_ratio", "class run CPU per submission / a cold torch process's CPU", 1 / 20, "at most 1/20"),
    ("class_wall_ratio", "class run wall per submission / a cold torch process's wall", 1 / 30, "at most 1/30"),
    ("cores_busy", "cores busy over the class run (/proc/stat, every process)", 0.90, "at least 90%"),
    ("autograder_ratio", "run_autograder / a bare import (wall, medians)", 1.3, "at most 1.3x"),
    ("watch_median_ms", "check --watch: grader time per regrade, median (ms)", 50.0, "at most 50 ms"),
)


def add(path: str | None, **figures: float) -> None:
    """Merge `figures` into the JSON file at `path` (nothing without one)."""
    if not path:
        return
    file = Path(path)
    known = json.loads(file.read_text() or "{}") if file.exists() else {}  # mktemp leaves it empty
    file.write_text(json.dumps(known | figures, indent=1))


def _shown(key: str, value: float) -> str:
    if key == "cores_busy":
        return f"{value:.0%}"
    if key.endswith("_ms"):
        return f"{value:.0f} ms"
    return f"1/{1 / value:.1f}" if value < 1 else f"{value:.2f}x"


def main() -> None:
    figures = json.loads(Path(sys.argv[1]).read_text() or "{}") if len(sys.argv) > 1 and Path(sys.argv[1]).exists() else {}
    print("issue 24, side by side (this run; load average at the end: "
          f"{Path('/proc/loadavg').read_text().split()[0] if Path('/proc/loadavg').exists() else '?'}):")
    for key, what, bound, reads in TARGETS:
        if key not in figures:
            print(f"  {what:62s} not measured in this run")
            continue
        value = figures[key]
        met = value >= bound if key == "cores_busy" else value <= bound
        print(f"  {what:62s} {_shown(key, value):>9s}  (target {reads}: {'met' if met else 'NOT met'})")
    for key in ("fresh_cpu_s", "fresh_wall_s", "class_cpu_s", "class_own_cpu_s", "class_wall_s"):
        if key in figures:
            print(f"  {key} = {figures[key] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
