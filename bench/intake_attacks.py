"""How long intake takes on the intake gallery (tests/support/intake_attacks.py), and how the notebook
converter scales with the number of statements.

Each attack is read alone beside one honest file (`collect` on a folder of two), then all together as
one class; then notebooks of N reverse-ordered assignments that a definition needs are converted
(a fixed-point loop over the statements was quadratic here: 1,000 statements 0.9 s, 4,000 14 s).
Printed as measured, in seconds (the best of `--rounds` runs). Nothing is graded: intake only, unless
`--class-run`: then the whole class is also graded once, as an instructor would (`python -m grader grade
FOLDER --out DIR` in a fresh process), and the wall time to its gradebook is printed with the honest
student's score and the gradebook's rows.

    python bench/intake_attacks.py [--rounds 3] [--json] [--class-run]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.intake_attacks import ATTACKS, REFERENCE, write_class  # noqa: E402

from grader.intake.collect import collect  # noqa: E402
from grader.intake.notebook import script_from_cells  # noqa: E402


def _best(rounds: int, fn) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _chain(n: int) -> list[str]:
    lines = [f"x{i} = x{i + 1}" for i in range(n)] + [f"x{n} = 1"]
    return ["def causal_attention(q, k, v):\n    return v * x0\n", "\n".join(reversed(lines))]


def measure(rounds: int) -> dict:
    out: dict = {"attacks": {}, "converter": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for attack in ATTACKS:
            folder = Path(tmp) / attack.path.replace(".", "_")
            folder.mkdir()
            (folder / "honest_200_9000_attention.py").write_text(REFERENCE)
            (folder / attack.path).write_bytes(attack.build())
            out["attacks"][attack.name] = _best(rounds, lambda folder=folder: collect([folder]))
        write_class(Path(tmp) / "class")
        out["whole class"] = _best(rounds, lambda: collect([Path(tmp) / "class"]))
    for n in (1_000, 4_000, 19_000):
        cells = _chain(n)
        out["converter"][n] = _best(rounds, lambda cells=cells: script_from_cells(cells))
    return out


def class_run() -> dict:
    """The whole intake gallery graded in one class run: seconds to the gradebook, what it holds."""
    with tempfile.TemporaryDirectory() as tmp:
        folder, out = Path(tmp) / "class", Path(tmp) / "out"
        write_class(folder)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out)],
                              cwd=ROOT, env={**os.environ, "GRADER_SECRET": "bench-secret"},
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        book = out / "gradebook.csv"
        rows = list(csv.DictReader(book.open(encoding="utf-8-sig"))) if book.exists() else []
        honest = next((r["Score"] for r in rows if r["Student"] == "honest"), None)
        return {"wall_s": round(wall, 1), "exit": done.returncode, "gradebook": book.exists(), "rows": len(rows),
                "honest_score": honest}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--class-run", action="store_true", help="also grade the whole class once, timed")
    args = parser.parse_args()
    result = measure(args.rounds)
    if args.class_run:
        result["class run"] = class_run()
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for name, s in result["attacks"].items():
        print(f"{s:8.3f} s  {name}")
    print(f"{result['whole class']:8.3f} s  the whole class of {len(ATTACKS)} attacks and one honest file")
    for n, s in result["converter"].items():
        print(f"{s:8.3f} s  converting {n} reverse-ordered assignments")
    if "class run" in result:
        run = result["class run"]
        print(f"{run['wall_s']:8.1f} s  grading the whole class to its gradebook (exit {run['exit']}, "
              f"{run['rows']} rows, the honest student {run['honest_score']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
