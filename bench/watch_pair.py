"""Two trees' `check FILE --watch` side by side: saves alternate between the trees' watchers, so a shared
machine's neighbours weigh on both alike.

Each tree's watcher watches its own copy of the buggy example; each save writes the reference or the
buggy example (alternating, as `make bench` does) and waits for the watcher's summary line, then for
its report to be printed, before the other tree's save. Per regrade: the watcher's own "graded in"
figure (wall: the sandboxed child's calls, judging, the hint state) and the watcher process's CPU
over the regrade (every thread, /proc/PID/task/*/schedstat; not the sandboxed child's).

    git archive BASE | tar -x -C /tmp/before
    .venv/bin/python bench/watch_pair.py /tmp/before . --saves 14
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from environment import installed_like  # bench/, beside this file

TOOK = re.compile(r"graded in (\d+) ms")


def _cpu_ms(pid: int) -> float:
    tasks = Path(f"/proc/{pid}/task")
    return sum(int((t / "schedstat").read_text().split()[0]) for t in tasks.iterdir()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs=2, type=Path, help="two source trees: before, after")
    parser.add_argument("--saves", type=int, default=14, help="saves per tree")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees]
    with tempfile.TemporaryDirectory(prefix="grader-watch-pair-") as tmp:
        env = installed_like(Path(tmp), GRADER_DATA_DIR=tmp, NO_COLOR="1")
        watchers = []
        for i, tree in enumerate(trees):
            sub = Path(tmp) / f"tree{i}" / "attention.py"
            sub.parent.mkdir()
            shutil.copy(tree / "examples" / "submission.py", sub)
            proc = subprocess.Popen([sys.executable, "-m", "grader", "check", str(sub), "--watch"], cwd=tree, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=lambda p=proc, q=lines: [q.put(line) for line in p.stdout], daemon=True).start()
            watchers.append((sub, proc, lines))

        def graded_in(lines: queue.Queue) -> float:
            while True:
                if m := TOOK.search(lines.get(timeout=300)):
                    return float(m.group(1))

        try:
            for _, _, lines in watchers:
                graded_in(lines)  # the first, cold grade
            load = os.getloadavg()[0]
            seen: dict[int, list[tuple[float, float, bool]]] = {0: [], 1: []}
            for s in range(args.saves):
                for i in ((0, 1) if s % 2 == 0 else (1, 0)):
                    sub, proc, lines = watchers[i]
                    buggy = s % 2 == 1
                    source = trees[0] / ("examples/submission.py" if buggy else "reference/attention.py")
                    cpu = _cpu_ms(proc.pid)
                    (sub.parent / "tmp").write_bytes(source.read_bytes() + f"# save {s}\n".encode())
                    os.replace(sub.parent / "tmp", sub)
                    took = graded_in(lines)
                    time.sleep(0.6)  # its report printed and its child reaped before the other tree's save
                    seen[i].append((took, _cpu_ms(proc.pid) - cpu, buggy))
        finally:
            for _, proc, _ in watchers:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=60)
    for i, tree in enumerate(trees):
        took = [t for t, _, _ in seen[i]]
        buggy = [t for t, _, b in seen[i] if b]
        print(f"{tree}: graded in, median {statistics.median(took):.0f} ms ({min(took):.0f}-{max(took):.0f}), "
              f"buggy saves {statistics.median(buggy):.0f} ms; watcher CPU per regrade, median "
              f"{statistics.median(c for _, c, _ in seen[i]):.1f} ms; over {args.saves} saves")
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
