"""The CPU a submission costs on each side of the sandbox, two trees side by side: a before/after figure on a shared machine.

Each tree gets one worker process with one warm sandbox. On each signal from here it runs the class
mix (the reference, the correct variants, the mutants but `timeout` and `memory_limit`) through the
sandbox as an instructor's grade does (hidden probes, a fixed secret), judges each, then runs and judges
the buggy example three times as `check --watch` does a save, and says per submission:
- the grader's CPU in the sandbox exchange (probes built, calls sent, replies read: `time.process_time`);
- the grader's CPU judging;
- the CPU of the sandbox's server and every child it reaped (its /proc stat with children's times):
  the forks, the hardening, the submission's calls, the exits;
- the wall time of the class mix, serially, and of a self-check of the buggy example.
The workers take turns, round by round, in alternating order, so neighbours weigh on both alike.

    git archive BASE | tar -x -C /tmp/before
    .venv/bin/python bench/sandbox_cpu.py /tmp/before . --rounds 8
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from side_by_side import alternate, class_mix  # bench/, beside this file

FIGURES = ("exchange (grader)", "judging (grader)", "server and children", "class wall",
           "self-check: grader", "self-check wall")


def _tree_cpu_ms(pid: int) -> float:
    """utime + stime + cutime + cstime of `pid` (its reaped children included), in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def worker(root: Path) -> None:
    sys.path.insert(0, str(root))
    import inspect

    import grader.grade as G
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.process import plant_seed
    from grader.sandbox import Sandbox

    # As a class's command plants it (huge pages where the tree knows them: `process.collapse_heap`).
    plant_seed(**({"huge_pages": True} if "huge_pages" in inspect.signature(plant_seed).parameters else {}))
    pool = class_mix(root)
    rubric, student = G.default_rubric(INSTRUCTOR_RUBRIC), G.load_self_check()
    buggy = root / "examples" / "submission.py"

    def grade(path: Path, rb, secret, audience) -> None:
        G.judge(G.execute(path, sandbox=sb, rubric=rb, secret=secret, audience=audience), rubric=rb, audience=audience)

    with Sandbox() as sb:
        for p in pool[:3]:  # one-off lazy imports and the visible probes' expected values
            grade(p, rubric, "bench-secret", "instructor")
        grade(buggy, student, None, "student")
        print("ready", flush=True)
        for _ in sys.stdin:
            time.sleep(0.1)  # the last run's child reaped
            server, cpu, wall = _tree_cpu_ms(sb.zygote_pid), time.process_time(), time.perf_counter()
            executed = [G.execute(p, sandbox=sb, rubric=rubric, secret="bench-secret", audience="instructor")
                        for p in pool]
            exchanged = time.process_time()
            for e in executed:
                G.judge(e, rubric=rubric, audience="instructor")
            judged, class_wall = time.process_time(), time.perf_counter()
            for _ in range(3):
                grade(buggy, student, None, "student")
            checked, check_wall = time.process_time(), time.perf_counter()
            time.sleep(0.2)  # and this one's
            n = len(pool)
            print((exchanged - cpu) * 1e3 / n, (judged - exchanged) * 1e3 / n,
                  (_tree_cpu_ms(sb.zygote_pid) - server) / (n + 3), (class_wall - wall) * 1e3 / n,
                  (checked - judged) * 1e3 / 3, (check_wall - class_wall) * 1e3 / 3, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="two source trees: before, after")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker.resolve())
    if len(args.trees) != 2:
        parser.error("give two trees: before, after")
    load = os.getloadavg()[0]
    spent = alternate(__file__, args.trees, args.rounds)
    for i, tree in enumerate(args.trees):
        columns = zip(*spent[i], strict=True)
        print(f"{tree}: " + "; ".join(f"{name} {statistics.median(c):.1f}" for name, c in zip(FIGURES, columns,
                                                                                           strict=True))
              + f" ms per submission, medians over {args.rounds} rounds")
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
