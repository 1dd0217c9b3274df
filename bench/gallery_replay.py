"""Replay the whole adversarial gallery in one class run, beside honest files.

Everything in tests/gallery/ and every honest file (the reference, the correct variants in
tests/variants/) goes through one `grade_files` run, interleaved, two warm sandboxes working
side by side as in a real class run. It then checks, and prints as measured:
- every honest file scores full marks (a hostile neighbour changes nobody else's verdict);
- every gallery file got a report (no file stops the run) and none crashed the grader;
- nothing owned by a sandbox uid is left on the host afterwards (files in the shared writable
  folders, SysV IPC objects, keys in the kernel's key rings, processes);
- the grader process's peak resident memory (VmHWM) stays under the bound (1 GiB).

Exit status 0 when all of that holds. `--fast` uses short budgets (what the test suite runs).

    python bench/gallery_replay.py [--fast] [--json]
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
from grader.sandbox import Limits, Sandbox  # noqa: E402
from grader.sandbox.leftovers import owned_by  # noqa: E402

GALLERY = ROOT / "tests" / "gallery"
HONEST = [ROOT / "reference" / "attention.py", *sorted((ROOT / "tests" / "variants").glob("*.py"))]
PEAK_BOUND = 1 << 30
FAST = Limits(call_s=1.0, load_s=2.0, submission_s=8.0, wall_factor=3.0)


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def replay(limits: Limits | None = None) -> dict:
    hostile = sorted(p for p in GALLERY.glob("*.py") if p not in HONEST)
    # Interleaved: each honest file runs beside (and right after) hostile ones.
    order: list[Path] = []
    for i, path in enumerate(hostile):
        order.append(path)
        if i % 3 == 2 and len(order) < len(hostile) + len(HONEST):
            order.append(HONEST[(i // 3) % len(HONEST)])
    order += [h for h in HONEST if h not in order]
    if Path("/proc/self/clear_refs").exists():
        Path("/proc/self/clear_refs").write_text("5")  # peak RSS counted from here
    start = time.monotonic()
    sandboxes = [Sandbox(limits=limits, quiet=True) for _ in range(2)]
    for sb in sandboxes:
        sb.start()
    # What the slot uids owned before (a stale leftover of an older grader on this host) is not this run's.
    before = {x for sb in sandboxes if sb.uid for x in owned_by(sb.uid)}
    try:
        reports = grade_files(order, sandboxes=sandboxes, secret="replay-secret")
    finally:
        for sb in sandboxes:
            sb.close()
    wall = time.monotonic() - start
    peak = _status("VmHWM")
    uids = sorted({sb.uid for sb in sandboxes if sb.uid})
    end = time.monotonic() + 10
    while (left := [x for uid in uids for x in owned_by(uid) if x not in before]) and time.monotonic() < end:
        time.sleep(0.1)
    by_path = {r.submission: r for r in reports}
    honest = {str(h): by_path[str(h)] for h in HONEST}
    return {
        "files": len(order),
        "hostile": len(hostile),
        "reports": len(reports),
        "wall_s": round(wall, 1),
        "isolation": sorted({r.runtime.isolation for r in reports}),
        "honest_not_full": [f"{Path(p).name}: {r.score}/{r.max_score}" for p, r in honest.items()
                            if r.score != r.max_score or r.status != "graded"],
        "grader_errors": [Path(r.submission).name for r in reports if r.status == "grader_error"],
        "hostile_scores": {Path(r.submission).name: r.score for r in reports if Path(r.submission) in hostile},
        "left_behind": left,
        "owned_before_the_run": sorted(before),
        "sandbox_uids": uids,
        "peak_rss_mib": round(peak / (1 << 20)),
        "peak_bound_mib": PEAK_BOUND >> 20,
    }


def ok(result: dict) -> bool:
    return (result["reports"] == result["files"] and not result["honest_not_full"] and not result["grader_errors"]
            and not result["left_behind"] and result["peak_rss_mib"] * (1 << 20) < PEAK_BOUND)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="short CPU budgets, as in the test suite")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    result = replay(FAST if args.fast else None)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    print("OK" if ok(result) else "FAILED", file=sys.stderr)
    return 0 if ok(result) else 1


if __name__ == "__main__":
    sys.exit(main())
