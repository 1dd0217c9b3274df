"""`grade --jobs N` (issue 24): N judging processes give the gradebook and every report of one process, byte
for byte but for the wall times; the default N is the cores this process may use (affinity, cgroup quota)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from class_kit import MUTANTS, ROOT, grade, outputs, small_class

from grader.batch.cores import cgroup_quota, usable_cores


def test_one_and_four_judging_processes_write_the_same_class(tmp_path):
    folder = tmp_path / "class"
    small_class(folder)
    one, four = grade(folder, tmp_path / "one", "--jobs", "1"), grade(folder, tmp_path / "four", "--jobs", "4")
    assert one.returncode == 0 and four.returncode == 0, (one.stderr, four.stderr)
    assert "judging processes" not in one.stderr and "by 4 judging processes" in four.stderr
    a, b = outputs(tmp_path / "one"), outputs(tmp_path / "four")
    assert {"gradebook.csv", "summary.json", "review.csv", "skipped.csv"} <= set(a)
    assert len([k for k in a if k.startswith("reports/")]) == 2 + len(MUTANTS) + 1
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], name
    # The judges saved every report in the store: a rerun with any N grades nothing again.
    again = grade(folder, tmp_path / "four", "--jobs", "2")
    assert again.returncode == 0 and "0 graded now" in again.stderr and f"{3 + len(MUTANTS)} from the store" in again.stderr
    assert outputs(tmp_path / "four") == b


def test_the_comparison_sees_a_different_report(tmp_path):
    """Negative control: the comparison above fails when one report differs in anything but its wall time."""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.py").write_text((ROOT / "reference" / "attention.py").read_text())
    one = grade(folder, tmp_path / "one", "--jobs", "1")
    assert one.returncode == 0, one.stderr
    a = outputs(tmp_path / "one")
    report = next(k for k in a if k.startswith("reports/"))
    path = tmp_path / "one" / report
    data = json.loads(path.read_text())
    data["score"] -= 1
    path.write_text(json.dumps(data, indent=1))
    assert outputs(tmp_path / "one")[report] != a[report]


@pytest.mark.parametrize("bad", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_count(tmp_path, bad):
    proc = grade(tmp_path, tmp_path / "out", "--jobs", bad)
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
