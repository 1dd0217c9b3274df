"""The course service under load: time from upload to feedback, and the server's memory.

Starts `python -m grader serve` as an instructor would (its own process, its worker processes, the
real sandbox, the instructor rubric) on loopback, signs STUDENTS students in by their links, and
measures two loads, one after the other on the same server:

- burst (closed loop, zero think time): every student uploads at once, waits for its report, uploads
  again at once, UPLOADS uploads in all. The worst case: the queue is never empty, so this figure
  measures the machine's grading throughput, not what a class sees.
- class (the issue's figure): each student arrives at a uniformly random time in the first ARRIVAL
  seconds, uploads, waits for its report, reads it for a think time of THINK_MIN seconds plus an
  exponential draw of mean THINK_MEAN - THINK_MIN (seeded), then uploads again, PER_STUDENT uploads
  each. A student who reads the report before editing, as the service is meant to be used.

Files are mixed from the reference and the mutants (each made distinct by a comment, so every one is
graded; the `timeout` and `memory_limit` mutants are left out: they spend seconds by design). A
client waits as the page's script does: the long poll `/submissions/ID/wait`, then the report page.
For each upload, the time from sending it to the report page showing the graded report. Memory: the
web process's own peak (VmHWM), and the sampled peak (every 0.2 s) of its whole process tree (workers,
the sandbox's servers and children): the sum of RSS, which counts pages shared by the forked workers
once per process, and the sum of PSS, which shares them out. Checks that every upload was graded
once, the student's own. Prints the numbers and the machine's load average before and after.

    python bench/serve_load.py [--students 50] [--uploads 200] [--per-student 4] [--think-mean 30]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psutil  # noqa: E402

from grader.paths import INSTRUCTOR_RUBRIC  # noqa: E402
from grader.serve.tokens import Who, token_for  # noqa: E402

SECRET = "bench-serve-load-secret"
LEFT_OUT = {"timeout.py", "memory_limit.py"}
FILES = [ROOT / "reference" / "attention.py"] + [p for p in sorted((ROOT / "reference" / "mutants").glob("*.py"))
                                                 if p.name not in LEFT_OUT]


def course(folder: Path, students: int) -> Path:
    (folder / "roster.csv").write_text("ID,Name,Email\n" + "".join(
        f"b{i:03d},Student {i:03d},b{i:03d}@uni.example\n" for i in range(students)), encoding="utf-8")
    (folder / "course.yaml").write_text(
        f"title: serve load bench\nrubric: {INSTRUCTOR_RUBRIC}\nroster: roster.csv\nsecret: {{env: BENCH_SECRET}}\n"
        "due: 2099-01-01T00:00:00+00:00\nrelease: immediate\nmax_upload_kb: 256\nqueue_limit: 5000\n"
        "store: course.sqlite\n", encoding="utf-8")
    return folder / "course.yaml"


def tree(root: int) -> set[int]:
    """`root` and every descendant (psutil, which ipykernel in the dev extras already brings)."""
    try:
        return {root, *(p.pid for p in psutil.Process(root).children(recursive=True))}
    except psutil.NoSuchProcess:
        return {root}


def cpu_seconds(pids: set[int]) -> float:
    """CPU time of these processes and of the children each has reaped (the sandbox's children are
    reaped by its servers, which live as long as the workers), from /proc/PID/stat."""
    ticks = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def memory(pids: set[int]) -> tuple[int, int]:
    """(sum of RSS, sum of PSS) in bytes of these processes, from smaps_rollup."""
    rss = pss = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        rss += int(re.search(r"^Rss:\s+(\d+) kB", text, re.M)[1]) * 1024
        pss += int(re.search(r"^Pss:\s+(\d+) kB", text, re.M)[1]) * 1024
    return rss, pss


def vm_hwm(pid: int) -> int:
    found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found[1]) * 1024 if found else 0


def student(base: str, key: str, uploads: list[tuple[int, bytes]], think: list[float],
            arrive: float) -> list[tuple[int, str, float]]:
    """One student's uploads in turn: `arrive` seconds before the first, think[i] after the i-th report."""
    out = []
    with httpx.Client(base_url=base, follow_redirects=False, timeout=600) as client:
        assert client.get("/sign-in", params={"token": token_for(SECRET, Who("student", key))}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text)[1]
        time.sleep(arrive)
        for (n, source), pause in zip(uploads, think, strict=True):
            t0 = time.monotonic()
            r = client.post("/submit", data={"csrf": csrf}, files={"file": ("attention.py", source)})
            assert r.status_code == 303, r.text
            where = r.headers["location"]
            while client.get(where + "/wait").json()["state"] != "graded":  # as the page's script asks
                pass
            page = client.get(where).text
            out.append((n, where, time.monotonic() - t0))
            assert "Attention check: attention.py" in page, page[:400]
            time.sleep(pause)
    return out


class Server:
    """`grader serve` on a free loopback port, its memory sampled while it runs."""

    def __init__(self, folder: Path, students: int, workers: int | None):
        path = course(folder, students)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        more = ["--workers", str(workers)] if workers else []
        self.proc = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", str(path),
                                      "--port", str(port), *more], cwd=ROOT, env={**os.environ, "BENCH_SECRET": SECRET},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(1200):  # the start: torch imported, the sandboxes warm; at most 2 minutes
            try:
                if httpx.get(self.base + "/", timeout=5).status_code == 401:
                    break
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            time.sleep(0.1)
        self.peak_rss = self.peak_pss = 0
        self.processes = 0
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._sampling.is_set():
            pids = tree(self.proc.pid)
            rss, pss = memory(pids)
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self.processes = max(self.processes, len(pids))
            time.sleep(0.2)

    def stop(self) -> int:
        """Stops sampling and the server; the web process's VmHWM."""
        self._sampling.set()
        self._sampler.join()
        try:
            return vm_hwm(self.proc.pid)
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=120)


def run(server: Server, plan: dict[str, list[tuple[int, bytes]]], think: dict[str, list[float]],
        arrive: dict[str, float]) -> tuple[list[tuple[int, str, float]], float, float]:
    """Every student's uploads; their (upload, page, seconds), the wall time, the server tree's CPU seconds."""
    cpu0, t0 = cpu_seconds(tree(server.proc.pid)), time.monotonic()
    with ThreadPoolExecutor(max_workers=len(plan)) as pool:
        done = [r for rs in pool.map(lambda key: student(server.base, key, plan[key], think[key], arrive[key]), plan)
                for r in rs]
    return done, time.monotonic() - t0, cpu_seconds(tree(server.proc.pid)) - cpu0


def summary(title: str, done: list[tuple[int, str, float]], wall: float, cpu: float) -> None:
    times = sorted(s for _, _, s in done)
    p95 = times[max(0, int(round(0.95 * len(times))) - 1)]
    print(title)
    print(f"  upload to feedback: p50 {statistics.median(times):.2f} s, p95 {p95:.2f} s, max {times[-1]:.2f} s")
    print(f"  {len(done)} graded in {wall:.1f} s ({len(done) / wall:.2f} uploads/s); the server's process tree "
          f"spent {cpu:.1f} s of CPU, {cpu / len(done):.2f} s per upload")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--uploads", type=int, default=200, help="burst: uploads in all (0: no burst)")
    parser.add_argument("--per-student", type=int, default=4, help="class: uploads per student (0: no class load)")
    parser.add_argument("--think-mean", type=float, default=30.0, help="class: mean seconds reading a report")
    parser.add_argument("--think-min", type=float, default=5.0, help="class: the least seconds reading a report")
    parser.add_argument("--arrival", type=float, default=30.0, help="class: students arrive over these seconds")
    parser.add_argument("--workers", type=int, help="the server's grading processes (default: its own)")
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    keys = [f"b{i:03d}" for i in range(args.students)]
    counter = iter(range(10**9))

    def upload() -> tuple[int, bytes]:
        n = next(counter)
        return n, FILES[n % len(FILES)].read_bytes() + f"\n# upload {n}\n".encode()

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        load_before = os.getloadavg()
        server = Server(Path(tmp), args.students, args.workers)
        results = []
        try:
            if args.uploads:
                plan = {k: [] for k in keys}
                for n in range(args.uploads):
                    plan[keys[n % len(keys)]].append(upload())
                done, wall, cpu = run(server, plan, {k: [0.0] * len(v) for k, v in plan.items()}, dict.fromkeys(keys, 0.0))
                results.append((f"burst: {args.uploads} uploads by {args.students} students at once, zero think time "
                                "(each uploads again as soon as its report is shown)", done, wall, cpu))
            if args.per_student:
                rng = random.Random(args.seed)
                plan = {k: [upload() for _ in range(args.per_student)] for k in keys}
                extra = args.think_mean - args.think_min
                think = {k: [args.think_min + rng.expovariate(1 / extra) if extra > 0 else args.think_min
                             for _ in range(args.per_student)] for k in keys}
                arrive = {k: rng.uniform(0, args.arrival) for k in keys}
                done, wall, cpu = run(server, plan, think, arrive)
                results.append((f"class: {args.students} students, {args.per_student} uploads each, arriving over "
                                f"{args.arrival:g} s, reading each report {args.think_min:g} s + exponential "
                                f"(mean {args.think_mean:g} s in all) before the next upload (seed {args.seed})",
                                done, wall, cpu))
        finally:
            hwm = server.stop()
        from grader.serve.store import CourseStore

        store = CourseStore(Path(tmp) / "course.sqlite")
        graded = [s for key in keys for s in store.history(key) if s.state == "graded"]
        every = [r for _, done, _, _ in results for r in done]
        assert len(graded) == len(every) == len({w for _, w, _ in every}), "an upload was lost or graded twice"
        print(f"grader serve on loopback, real sandbox, instructor rubric, {args.workers or 'default'} workers "
              f"({os.cpu_count()} cores, {len(os.sched_getaffinity(0))} usable)")
        for title, done, wall, cpu in results:
            summary(title, done, wall, cpu)
        print(f"  server peak memory: web process {hwm / 2**20:.0f} MiB (VmHWM); process tree, sampled every 0.2 s: "
              f"{server.peak_rss / 2**20:.0f} MiB RSS summed, {server.peak_pss / 2**20:.0f} MiB PSS summed "
              f"(at most {server.processes} processes)")
        print(f"  load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} "
              f"({os.cpu_count()} cores; other work may be running)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
