"""A cold `check` and a cold single-file `grade --json` against a bare `python -c "import torch"`.

This is what a student pays on every run and what every Gradescope container pays once: a fresh
process, one submission. All commands are timed here, side by side, in one run, interleaved
round by round so a noisy neighbour hurts each alike; the figure is the median over rounds.
Target (issue 12): each at most 1.3x the bare import. `run_autograder`, what every Gradescope container
runs once, is timed the same way against a rehearsal root (a folder laid out as /autograder) holding the
zip `export gradescope` builds, with this checkout's interpreter as GRADER_PYTHON (target, issue 24: at
most 1.3x). Then `check FILE --watch` is driven by
`--saves` saves, and the grader time of each regrade (its own "graded in" figure) is reported.

`--otter` also times Otter-Grader's `otter run` on the same files, one fresh process per file,
from a throwaway virtual environment it builds (PyPI must be reachable); it is skipped with a
reason when that environment cannot be built.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from environment import installed_like  # bench/, beside this file
from figures import add  # bench/, beside this file

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "attention.py"
CORRECT = REFERENCE
BUGGY = ROOT / "examples" / "submission.py"


def commands(py: str) -> dict[str, list[str]]:
    return {
        "bare `python -c 'import torch'`": [py, "-c", "import torch"],
        "check FILE (correct)": [py, "-m", "grader", "check", str(REFERENCE)],
        "check FILE (buggy, diagnosed)": [py, "-m", "grader", "check", str(BUGGY)],
        "grade FILE --json (correct)": [py, "-m", "grader", "grade", str(REFERENCE), "--json"],
    }


def autograder_rehearsal(work: Path, py: str) -> dict[str, list[str]]:
    """The exported zip unpacked as Gradescope unpacks it, one correct submission in place: its own
    run_autograder, rubric and secret; the grader this checkout runs (not the wheel in a fresh venv)."""
    import zipfile

    from grader.export.gradescope import build_autograder

    root = work / "autograder"
    archive, _ = build_autograder(work / "autograder.zip", secret="bench-secret")
    zipfile.ZipFile(archive).extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    shutil.copy(REFERENCE, root / "submission" / "attention.py")
    return {"run_autograder (rehearsal, correct)": ["env", f"GRADER_AUTOGRADER_ROOT={root}", f"GRADER_PYTHON={py}",
                                                    str(root / "source" / "run_autograder")]}


def run_once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed


def watch_regrades(env: dict[str, str], work: Path, saves: int) -> list[float]:
    """Grader time (ms) of each regrade by `check FILE --watch`, from its own summary lines,
    over `saves` saves alternating between a buggy and a correct file."""
    import queue
    import re
    import threading

    sub = work / "watched" / "attention.py"
    sub.parent.mkdir()
    shutil.copy(BUGGY, sub)
    proc = subprocess.Popen([sys.executable, "-m", "grader", "check", str(sub), "--watch"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    took = re.compile(r"graded in (\d+) ms")

    def next_time() -> float:
        while True:
            line = lines.get(timeout=300)
            if m := took.search(line):
                return float(m.group(1))

    try:
        next_time()  # the first, cold grade
        times = []
        for i in range(saves):
            source = (CORRECT if i % 2 == 0 else BUGGY).read_bytes() + f"# save {i}\n".encode()
            (sub.parent / "tmp").write_bytes(source)
            os.replace(sub.parent / "tmp", sub)
            times.append(next_time())
        return times
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each times every command once")
    parser.add_argument("--saves", type=int, default=10, help="saves to time under `check --watch` (0: none)")
    parser.add_argument("--otter", action="store_true", help="also time `otter run` (builds a venv)")
    parser.add_argument("--otter-venv", metavar="DIR", help="reuse (or build here) Otter's virtual environment")
    parser.add_argument("--figures", metavar="FILE", help="add issue 24's figures to this JSON file (bench/figures.py)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp:
        env = installed_like(Path(tmp), GRADER_DATA_DIR=tmp, GRADER_SECRET="bench-secret", NO_COLOR="1")
        cmds = commands(sys.executable) | autograder_rehearsal(Path(tmp), sys.executable)
        otter = None
        if args.otter:
            sys.path.insert(0, str(Path(__file__).parent))
            from otter import prepare  # only when asked for: it builds a virtual environment

            otter, why = prepare(Path(tmp), [REFERENCE, BUGGY], Path(args.otter_venv) if args.otter_venv else None)
            if otter is None:
                print(f"otter run: not measured ({why})")
            else:
                cmds |= otter
        times: dict[str, list[float]] = {name: [] for name in cmds}
        for cmd in cmds.values():  # once untimed: page cache, .pyc files (in the scratch folder)
            run_once(cmd, env)
        for _ in range(args.rounds):
            for name, cmd in cmds.items():
                times[name].append(run_once(cmd, env))
        regrades = watch_regrades(env, Path(tmp), args.saves) if args.saves else []
    med = {name: statistics.median(ts) for name, ts in times.items()}
    bare = med["bare `python -c 'import torch'`"]
    print(f"cold start, median of {args.rounds} interleaved rounds (isolation as the grader reports it):")
    for name, m in med.items():
        spread = f"{min(times[name]):.2f}-{max(times[name]):.2f} s"
        print(f"  {name:40s} {m:6.2f} s  ({spread})  {m / bare:4.2f}x bare import")
    ours = [m for name, m in med.items() if name.startswith(("check", "grade", "run_autograder"))]
    print(f"worst grader ratio: {max(ours) / bare:.2f}x a bare import (target <= 1.3x)")
    add(args.figures, autograder_ratio=med["run_autograder (rehearsal, correct)"] / bare)
    if regrades:
        print(f"check --watch: grader time per regrade, median {statistics.median(regrades):.0f} ms "
              f"(range {min(regrades):.0f}-{max(regrades):.0f} ms over {len(regrades)} saves, "
              "alternating a buggy and a correct file)")
        add(args.figures, watch_median_ms=statistics.median(regrades))
    theirs = [m for name, m in med.items() if name.startswith("otter")]
    if theirs:
        print(f"otter run per file / ours per file (medians of the medians): "
              f"{statistics.median(theirs) / statistics.median(ours):.1f}x")


if __name__ == "__main__":
    main()
