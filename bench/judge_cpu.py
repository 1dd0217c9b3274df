"""The grader's own CPU to judge a submission, two trees side by side: a before/after figure on a shared machine.

Judging (reading the replies, the checks, the diagnosis, scoring, the pictures) is what the grader
process spends per submission beyond the sandbox. Each tree gets one worker process that runs the
same files once through the sandbox, then, on each signal from here, judges them all again and says
the CPU time it spent (`time.process_time`). The workers take turns, round by round, in alternating
order, so neighbours on a shared machine weigh on both alike. Two figures per tree, medians over rounds:
- per submission of a class mix (the reference, the correct variants, the mutants but `timeout` and
  `memory_limit`), as an instructor's grade judges it (hidden probes, a fixed secret);
- the self-check of the buggy example (examples/submission.py), as `check --watch` judges each save.

    git archive BASE | tar -x -C /tmp/before
    .venv/bin/python bench/judge_cpu.py /tmp/before . --rounds 16
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from side_by_side import alternate, class_mix  # bench/, beside this file


def worker(root: Path) -> None:
    sys.path.insert(0, str(root))
    import grader.grade as G
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.process import plant_seed
    from grader.sandbox import Sandbox

    plant_seed()
    pool = class_mix(root)
    rubric, student = G.default_rubric(INSTRUCTOR_RUBRIC), G.load_self_check()
    with Sandbox() as sb:
        graded = [G.execute(p, sandbox=sb, rubric=rubric, secret="bench-secret", audience="instructor") for p in pool]
        buggy = G.execute(root / "examples" / "submission.py", sandbox=sb, rubric=student, secret=None,
                          audience="student")
    for e in graded:  # one-off lazy imports and the visible probes' expected values
        G.judge(e, rubric=rubric, audience="instructor")
    G.judge(buggy, rubric=student, audience="student")
    print("ready", flush=True)
    for _ in sys.stdin:
        t = time.process_time()
        for e in graded:
            G.judge(e, rubric=rubric, audience="instructor")
        per_file = (time.process_time() - t) / len(graded)
        t = time.process_time()
        for _ in range(3):
            G.judge(buggy, rubric=student, audience="student")
        print(per_file, (time.process_time() - t) / 3, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="two source trees: before, after")
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker.resolve())
    if len(args.trees) != 2:
        parser.error("give two trees: before, after")
    spent = alternate(__file__, args.trees, args.rounds)
    for i, tree in enumerate(args.trees):
        a, b = zip(*spent[i], strict=True)
        print(f"{tree}: judge CPU per class submission median {statistics.median(a) * 1000:.1f} ms "
              f"(min {min(a) * 1000:.1f}); buggy self-check judge median {statistics.median(b) * 1000:.1f} ms "
              f"(min {min(b) * 1000:.1f}), over {args.rounds} rounds")


if __name__ == "__main__":
    main()
