"""`grade --jobs N` (issue 24): N judging processes give the gradebook and every report of one process, byte
for byte but for the wall times; the default N is the cores this process may use (affinity, cgroup quota)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.batch.cores import cgroup_quota, usable_cores

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ("no_mask", "missing_scale", "softmax_wrong_axis", "future_offset", "process_exit", "swapped_return")


def _class(folder: Path) -> None:
    folder.mkdir()
    reference = (ROOT / "reference" / "attention.py").read_text()
    (folder / "ada.py").write_text(reference)
    (folder / "ada_again.py").write_text(reference)  # one source, two students: graded once
    (folder / "bo.py").write_text(reference + "\n# my own comment\n")
    for name in MUTANTS:
        (folder / f"{name}.py").write_text((ROOT / "reference" / "mutants" / f"{name}.py").read_text())
    (folder / "notes.txt").write_text("not a submission")


def _grade(folder: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADER_SECRET": "jobs-secret"}
    return subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)


def _without_wall_times(text: str) -> str:
    text = re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', text)
    return re.sub(r"wall time [0-9.]+ s", "wall time 0 s", text)  # the feedback's markdown


def _outputs(out: Path) -> dict[str, str]:
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out)
        if path.is_file() and rel.parts[0] not in ("staged",) and not rel.name.startswith("store.sqlite3") \
                and rel.suffix != ".html":  # summary.html draws the run's timings
            text = _without_wall_times(path.read_text())
            if rel.name == "summary.md":  # its slowest submissions, ranked by wall time
                text = re.sub(r"## Slowest submissions\n.*?(?=^## |\Z)", "", text, flags=re.MULTILINE | re.DOTALL)
            files[str(rel)] = text
    return files


def test_one_and_four_judging_processes_write_the_same_class(tmp_path):
    folder = tmp_path / "class"
    _class(folder)
    one, four = _grade(folder, tmp_path / "one", "--jobs", "1"), _grade(folder, tmp_path / "four", "--jobs", "4")
    assert one.returncode == 0 and four.returncode == 0, (one.stderr, four.stderr)
    assert "judging processes" not in one.stderr and "in 4 judging processes" in four.stderr
    a, b = _outputs(tmp_path / "one"), _outputs(tmp_path / "four")
    assert {"gradebook.csv", "summary.json", "review.csv", "skipped.csv"} <= set(a)
    assert len([k for k in a if k.startswith("reports/")]) == 2 + len(MUTANTS) + 1
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name
    # The judges saved every report in the store: a rerun with any N grades nothing again.
    again = _grade(folder, tmp_path / "four", "--jobs", "2")
    assert again.returncode == 0 and "0 graded now" in again.stderr and f"{3 + len(MUTANTS)} from the store" in again.stderr
    assert _outputs(tmp_path / "four") == b


def test_the_comparison_sees_a_different_report(tmp_path):
    """Negative control: the comparison above fails when one report differs in anything but its wall time."""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.py").write_text((ROOT / "reference" / "attention.py").read_text())
    one = _grade(folder, tmp_path / "one", "--jobs", "1")
    assert one.returncode == 0, one.stderr
    a = _outputs(tmp_path / "one")
    report = next(k for k in a if k.startswith("reports/"))
    path = tmp_path / "one" / report
    data = json.loads(path.read_text())
    data["score"] -= 1
    path.write_text(json.dumps(data, indent=1))
    assert _outputs(tmp_path / "one")[report] != a[report]


@pytest.mark.parametrize("bad", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_count(tmp_path, bad):
    proc = _grade(tmp_path, tmp_path / "out", "--jobs", bad)
    assert proc.returncode == 2 and "--jobs" in proc.stderr and "Traceback" not in proc.stderr


def _cgroup(tmp_path: Path, files: dict[str, str], membership: str) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    proc = tmp_path / "self-cgroup"
    proc.write_text(membership)
    return root, proc


def test_cgroup_v2_quota(tmp_path):
    root, proc = _cgroup(tmp_path, {"job/cpu.max": "150000 100000\n"}, "0::/job\n")
    assert cgroup_quota(root, proc) == 1.5
    assert usable_cores(root, proc) == min(2, len(os.sched_getaffinity(0)))
    root, proc = _cgroup(tmp_path / "none", {"cpu.max": "max 100000\n"}, "0::/elsewhere\n")  # the container's root
    assert cgroup_quota(root, proc) is None and usable_cores(root, proc) == len(os.sched_getaffinity(0))


def test_cgroup_v1_quota(tmp_path):
    files = {"cpu,cpuacct/slurm/cpu.cfs_quota_us": "50000\n", "cpu,cpuacct/slurm/cpu.cfs_period_us": "100000\n"}
    root, proc = _cgroup(tmp_path, files, "4:memory:/slurm\n3:cpu,cpuacct:/slurm\n")
    assert cgroup_quota(root, proc) == 0.5 and usable_cores(root, proc) == 1
    files = {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}
    root, proc = _cgroup(tmp_path / "unlimited", files, "1:cpu:/\n")
    assert cgroup_quota(root, proc) is None


def test_no_cgroup_is_the_affinity_mask(tmp_path):
    assert cgroup_quota(tmp_path, tmp_path / "absent") is None
    assert usable_cores(tmp_path, tmp_path / "absent") == len(os.sched_getaffinity(0))
