"""Grading one submission through the warm sandbox vs. one fresh `python -c "import torch"`.

Both are measured here, side by side, in one run, interleaved so a noisy neighbour hurts
both alike. Three warm figures, each a median:
- a whole `grade_file` on the reference solution: every probe sent, every reply checked,
  the rubric scored, the report built (the headline ratio);
- the sandbox part alone: the same probes through `Sandbox.run`, no checking;
- the sandbox's fixed cost: one trivial call (fork, hardening, import, kill).

Then a whole class as an instructor runs it: 1,000 mixed submissions (the reference, the correct variants
and the mutants, each file made distinct by a comment, so every one is graded; the `timeout` and
`memory_limit` mutants are left out because they spend seconds by design) in a Canvas-style export,
graded by the instructor's own command, `python -m grader grade EXPORT --out OUT`, timed from its start
(its torch import and the sandboxes' start included) to its exit, with the CPU the whole machine spent
meanwhile (every process, from /proc/stat): spread over every core, that CPU is the least wall time any
schedule could take on this machine. Then the same class again, every report from the store. Fresh interpreters are timed again right before and after it.

The warm figures run in this process with the settings that command uses (`process.plant_seed`: one
torch thread, sandbox servers forked from a clean copy).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.batch.run import grade_files  # noqa: E402
from grader.grade import grade_file  # noqa: E402
from grader.probes import build_probes, hidden_seed  # noqa: E402
from grader.process import plant_seed  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from environment import installed_like  # noqa: E402 - bench/, beside this file
from figures import add  # noqa: E402 - bench/, beside this file

REFERENCE = ROOT / "reference" / "attention.py"
SECRET = "bench-secret"
CLASS_SIZE = 20
SLOW_BY_DESIGN = ("timeout.py", "memory_limit.py")


def export(folder: Path, n: int) -> None:
    """n distinct submissions, Canvas-named, cycling through every correct and buggy file we have."""
    pool = [REFERENCE, *sorted((ROOT / "tests" / "variants").glob("*.py")),
            *sorted(p for p in (ROOT / "reference" / "mutants").glob("*.py") if p.name not in SLOW_BY_DESIGN)]
    texts = [p.read_text() for p in pool]
    for i in range(n):
        (folder / f"student{i:04d}_{10000 + i}_{20000 + i}_attention.py").write_text(
            texts[i % len(texts)] + f"\n# submission {i}\n")


def busy_seconds() -> float:
    """CPU time the whole machine has spent busy (every core, every process: the grader, the seed,
    the zygotes and the sandboxed children alike), from /proc/stat; idle, iowait and steal excluded."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]] + [0] * 8
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]  # steal (the host's) is not ours
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def class_with_store(n: int, fresh) -> tuple[float, float, float, list[float], float]:
    """Per-submission seconds for a class of n with --out (wall, then CPU of the whole machine),
    then wall seconds for the same class from the store: the instructor's own command,
    `python -m grader grade EXPORT --out OUT`, in a fresh process (its one torch import and the
    sandboxes' start included)."""
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        folder, out = Path(tmp) / "export", Path(tmp) / "out"
        folder.mkdir()
        export(folder, n)
        fresh_times = timed(fresh, 3)
        env = installed_like(Path(tmp), GRADER_SECRET=SECRET)
        subprocess.run([sys.executable, "-m", "grader", "--help"], env=env, capture_output=True)  # .pyc files

        def once() -> tuple[float, float, float]:
            t0, busy0, own0 = time.perf_counter(), busy_seconds(), children_cpu()
            done = subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out)],
                                  cwd=ROOT, env=env, capture_output=True, text=True)
            seconds, busy, own = time.perf_counter() - t0, busy_seconds() - busy0, children_cpu() - own0
            rows = len((out / "gradebook.csv").read_text().splitlines()) - 1 if done.returncode == 0 else -1
            if rows != n:
                sys.exit(f"the class run lost students ({rows} rows, exit {done.returncode}): {done.stderr[-2000:]}")
            return seconds / n, busy / n, own / n

        cold, cpu, own = once()
        warm, _, _ = once()
        fresh_times += timed(fresh, 3)
    return cold, cpu, warm, fresh_times, own


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def fresh_cpu(n: int) -> list[float]:
    """CPU seconds of each of n cold `python -c "import torch"` processes (all its threads)."""
    spent = []
    for _ in range(n):
        before = children_cpu()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        spent.append(children_cpu() - before)
    return spent


def timed(fn, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", type=int, default=6, help="fresh interpreters to time")
    parser.add_argument("--warm", type=int, default=30, help="warm runs of each kind to time")
    parser.add_argument("--class-size", type=int, default=1000, help="submissions in the class run (0: skip it)")
    parser.add_argument("--figures", metavar="FILE", help="add issue 24's figures to this JSON file (bench/figures.py)")
    args = parser.parse_args()

    def fresh() -> None:
        subprocess.run([sys.executable, "-c", "import torch"], check=True)

    plant_seed()  # as `python -m grader grade` does: one torch thread here, servers forked from a clean copy

    with Sandbox() as sb, Sandbox() as second:
        # Visible and hidden probes, as an instructor's grade sends them.
        calls = build_probes(hidden_seed(SECRET, REFERENCE.read_bytes())).calls()

        def grade() -> None:
            report = grade_file(REFERENCE, sandbox=sb, secret=SECRET)
            if report.score != report.max_score:
                sys.exit(
                    f"the reference scored {report.score}/{report.max_score}: the benchmark is meaningless"
                )

        def run() -> None:
            res = sb.run(REFERENCE, calls)
            if res.failures or res.failure or len(res.replies) != len(calls):
                sys.exit("the reference did not answer every probe: the benchmark is meaningless")

        def one_call() -> None:
            sb.run(REFERENCE, calls[:1])

        def class_run() -> None:
            # A class of CLASS_SIZE files: two warm sandboxes run the next files while this one is judged.
            grade_files([REFERENCE] * CLASS_SIZE, secret=SECRET, sandboxes=[sb, second])

        for warm_up in (grade, run, one_call):
            timed(warm_up, 2)  # the grader's own one-off lazy imports
        results: dict[str, list[float]] = {"fresh": [], "grade": [], "run": [], "one": [], "class": []}
        for _ in range(2):
            results["fresh"] += timed(fresh, (args.fresh + 1) // 2)
            results["grade"] += timed(grade, (args.warm + 1) // 2)
            results["run"] += timed(run, (args.warm + 1) // 2)
            results["one"] += timed(one_call, (args.warm + 1) // 2)
            results["class"] += [t / CLASS_SIZE for t in timed(class_run, 2)]
        isolation = sb.isolation
    med = {k: statistics.median(v) for k, v in results.items()}
    f = med["fresh"]
    print(f"fresh `python -c 'import torch'`: median {f * 1000:.0f} ms over {len(results['fresh'])} runs")
    print(f"isolation: {isolation}; {len(calls)} probe calls per submission")
    for key, label in (
        ("grade", "full grade_file (sandbox + checks + report)"),
        ("class", f"per file in a class run of {CLASS_SIZE} (grade_files)"),
        ("run", "sandbox only, all probes"),
        ("one", "sandbox fixed cost, one call"),
    ):
        print(f"{label:45s} median {med[key] * 1000:6.1f} ms   fresh/warm = {f / med[key]:5.1f}x")
    print(f"ratio fresh/warm (full grade, one file): {f / med['grade']:.1f}x; "
          f"per file in a class run: {f / med['class']:.1f}x (target >= 50x)")
    if args.class_size:
        cpu_before = fresh_cpu(3)
        cold, cpu, again, fresh_around, own = class_with_store(args.class_size, fresh)
        f2 = statistics.median(fresh_around)
        f_cpu = statistics.median(cpu_before + fresh_cpu(3))
        print(f"a cold `python -c 'import torch'` spends {f_cpu * 1000:.0f} ms of CPU (median of 6, before and after)")
        print(f"fresh `python -c 'import torch'` around the class run: median {f2 * 1000:.0f} ms over "
              f"{len(fresh_around)} runs")
        print(f"class of {args.class_size} mixed submissions with --out (intake, sandboxes, store, gradebook): "
              f"{cold * 1000:.1f} ms per submission, fresh/that = {f2 / cold:.1f}x (target >= 50x)")
        # No schedule can finish faster than the CPU it needs spread over every core: the bound the
        # hardware sets on this figure, measured (the machine's busy time), not estimated.
        cores = os.cpu_count() or 1
        print(f"CPU per submission in that run, every process on the machine: {cpu * 1000:.1f} ms; spread over "
              f"this machine's {cores} cores at best {cpu / cores * 1000:.1f} ms, fresh/that = "
              f"{f2 / (cpu / cores):.1f}x")
        # `grade` runs one judging process per usable core (--jobs): busy cores over the run, from the same
        # /proc/stat figures (on a shared machine another user's work counts too).
        print(f"cores busy during that run: {cpu / cold:.2f} of {cores} ({cpu / cold / cores:.0%}; target >= 90%)")
        print(f"the same class again, every report from the store: {again * 1000:.2f} ms per submission, "
              f"fresh/that = {f2 / again:.0f}x")
        print(f"side by side: class CPU per submission {cpu * 1000:.1f} ms = 1/{f_cpu / cpu:.1f} of a cold torch "
              f"process's CPU ({f_cpu * 1000:.0f} ms; target 1/20); class wall per submission {cold * 1000:.1f} ms = "
              f"1/{f2 / cold:.1f} of its wall ({f2 * 1000:.0f} ms; target 1/30); cores busy {cpu / cold / cores:.0%}")
        # On a shared machine the busy figure counts the neighbours too; the command's own process (and the
        # children it waits for; not the servers its seed reaps, nor the sandboxed children) is a floor.
        print(f"of which the grade command's own process: {own * 1000:.1f} ms per submission (a floor: the servers "
              f"and sandboxed children are not counted); 1/{f_cpu / own:.1f} of a cold torch process's CPU")
        add(args.figures, class_own_cpu_s=own, class_cpu_ratio=cpu / f_cpu, class_wall_ratio=cold / f2, cores_busy=cpu / cold / cores,
            fresh_cpu_s=f_cpu, fresh_wall_s=f2, class_cpu_s=cpu, class_wall_s=cold)


if __name__ == "__main__":
    main()
