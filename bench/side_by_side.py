"""Two source trees measured in turn: one worker process per tree, round by round in alternating order,
so neighbours on a shared machine weigh on both alike (bench/judge_cpu.py, bench/sandbox_cpu.py).

A worker is the calling script run with `--worker TREE`: it prints "ready", then for each line read from
its stdin prints one line of numbers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def class_mix(root: Path) -> list[Path]:
    """A tree's class of submissions: the reference, the correct variants and the mutants (those that only
    time out or exhaust memory left out: they measure the limits, not the grader)."""
    mutants = sorted(p for p in (root / "reference" / "mutants").glob("*.py")
                     if p.name not in ("timeout.py", "memory_limit.py"))
    return [root / "reference" / "attention.py", *sorted((root / "tests" / "variants").glob("*.py")), *mutants]


def alternate(script: str, trees: list[Path], rounds: int) -> dict[int, list[list[float]]]:
    """Each tree's numbers, one list per round."""
    procs = [subprocess.Popen([sys.executable, script, "--worker", str(t)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for t in trees]
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            sys.exit("a worker did not start")
    spent: dict[int, list[list[float]]] = {i: [] for i in range(len(trees))}
    for r in range(rounds):
        for i in (range(len(trees)) if r % 2 == 0 else reversed(range(len(trees)))):
            procs[i].stdin.write("go\n")
            procs[i].stdin.flush()
            spent[i].append([float(x) for x in procs[i].stdout.readline().split()])
    for p in procs:
        p.stdin.close()
        p.wait()
    return spent
