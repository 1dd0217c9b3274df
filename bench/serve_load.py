"""The course service under load: time from upload to feedback, and the server's memory.

Starts `python -m grader serve` as an instructor would (its own process, the real sandbox, the
instructor rubric) on loopback, then STUDENTS students at once, each signed in by their link, upload
UPLOADS files in all (each student uploads in turn; each upload waits for its report before the next),
mixed from the reference and the mutants (each made distinct by a comment, so every one is graded;
the `timeout` and `memory_limit` mutants are left out: they spend seconds by design). For each upload,
the time from sending it to the report page showing the graded report, polled every 50 ms. Memory:
the server process's own peak (VmHWM) and the peak, sampled every 0.2 s, of the resident memory of
its whole process tree (the sandbox's servers and children included). Checks that every upload was
graded once, the student's own. Prints the numbers and the machine's load average before and after.

    python bench/serve_load.py [--students 50] [--uploads 200]
"""

from __future__ import annotations

import argparse
import os
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


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and every descendant, read from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            parents[int(entry)], rss[int(entry)] = int(fields[1]), int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    inside, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in inside:
                inside.add(child)
                frontier.append(child)
    return sum(rss.get(p, 0) for p in inside)


def vm_hwm(pid: int) -> int:
    found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found[1]) * 1024 if found else 0


def student(base: str, key: str, uploads: list[tuple[int, bytes]]) -> list[tuple[int, str, float]]:
    out = []
    with httpx.Client(base_url=base, follow_redirects=False, timeout=600) as client:
        assert client.get("/sign-in", params={"token": token_for(SECRET, Who("student", key))}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text)[1]
        for n, source in uploads:
            t0 = time.monotonic()
            r = client.post("/submit", data={"csrf": csrf}, files={"file": ("attention.py", source)})
            assert r.status_code == 303, r.text
            where = r.headers["location"]
            while "reloads itself" in (page := client.get(where).text):
                time.sleep(0.05)
            out.append((n, where, time.monotonic() - t0))
            assert "Attention check: attention.py" in page, page[:400]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--uploads", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        path = course(Path(tmp), args.students)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        load_before = os.getloadavg()
        server = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", str(path), "--port", str(port)],
                                  cwd=ROOT, env={**os.environ, "BENCH_SECRET": SECRET},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(1200):  # the start: torch imported, the sandbox warm; at most 2 minutes
                try:
                    if httpx.get(base + "/", timeout=5).status_code == 401:
                        break
                except httpx.HTTPError:
                    pass
                assert server.poll() is None, server.stderr.read().decode()
                time.sleep(0.1)
            peak_tree, sampling = [0], threading.Event()

            def sample() -> None:
                while not sampling.is_set():
                    peak_tree[0] = max(peak_tree[0], tree_rss(server.pid))
                    time.sleep(0.2)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            plan: dict[str, list[tuple[int, bytes]]] = {f"b{i:03d}": [] for i in range(args.students)}
            for n in range(args.uploads):
                source = FILES[n % len(FILES)].read_bytes() + f"\n# upload {n}\n".encode()
                plan[f"b{n % args.students:03d}"].append((n, source))
            t0 = time.monotonic()
            with ThreadPoolExecutor(max_workers=args.students) as pool:
                done = [r for rs in pool.map(lambda kv: student(base, *kv), plan.items()) for r in rs]
            wall = time.monotonic() - t0
            sampling.set()
            sampler.join()
            hwm = vm_hwm(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=60)
        from grader.serve.store import CourseStore

        store = CourseStore(Path(tmp) / "course.sqlite")
        graded = [s for key in plan for s in store.history(key) if s.state == "graded"]
        assert len(graded) == args.uploads == len({w for _, w, _ in done}), "an upload was lost or graded twice"
        times = sorted(s for _, _, s in done)
        p95 = times[max(0, int(round(0.95 * len(times))) - 1)]
        print(f"{args.uploads} uploads by {args.students} concurrent students, real sandbox, instructor rubric")
        print(f"  upload to feedback: p50 {statistics.median(times):.2f} s, p95 {p95:.2f} s, max {times[-1]:.2f} s")
        print(f"  all {args.uploads} graded in {wall:.1f} s ({args.uploads / wall:.1f} uploads/s)")
        print(f"  server peak memory: process {hwm / 2**20:.0f} MiB (VmHWM), "
              f"process tree {peak_tree[0] / 2**20:.0f} MiB (sampled every 0.2 s)")
        print(f"  load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} "
              f"({os.cpu_count()} cores; other work was running)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
