"""`grade --jobs N` (issue 24): N judging processes give the gradebook and every report of one process, byte
for byte but for the wall times; the default N is the cores this process may use (affinity, cgroup quota)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    rerun = outputs(tmp_path / "four")
    assert rerun.pop("changes.csv") == "Student,ID,Before,After,Change,Why\n"  # a rerun says who moved: nobody
    assert rerun == b


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


# In a fresh interpreter: the judges are forks of the process that runs the class.
_ONE_JUDGE_DIES = """
import os, sys
from pathlib import Path
from grader.batch import run
from grader.intake.collect import collect
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric

judge_part = run._judge_part
def dying(conn, part, **kw):
    if sys.argv[2] == "die" and any(p.read_text().endswith("# bo\\n") for _, p, _ in part):
        os._exit(9)  # as a judge killed by the machine would end: no reply, no report
    return judge_part(conn, part, **kw)
run._judge_part = dying
done = run.grade_class(collect([sys.argv[1]]), rubric=load_rubric(INSTRUCTOR_RUBRIC), secret="s",
                       out=Path(sys.argv[3]), jobs=2)
for r in done.results:
    print(r.student.name or r.student.id, r.status, r.error)
"""


def test_a_judge_that_dies_costs_its_files_a_clear_row_and_a_rerun_grades_them(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    reference = (ROOT / "reference" / "attention.py").read_text()
    for name in ("ada", "bo", "cy", "di"):
        (folder / f"{name}.py").write_text(reference + f"\n# {name}\n")
    out = tmp_path / "out"

    def class_run(mode: str) -> dict[str, str]:
        proc = subprocess.run([sys.executable, "-c", _ONE_JUDGE_DIES, str(folder), mode, str(out)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in proc.stdout.splitlines()}

    rows = class_run("die")
    assert len(rows) == 4
    lost = {k for k, v in rows.items() if v.startswith("grader_error")}
    assert lost and lost != set(rows) and "bo" in lost  # the dying judge's files only
    assert all("its judging process ended early (rerun to retry)" in rows[k] for k in lost)
    assert all(rows[k].startswith("graded") for k in set(rows) - lost)
    rows = class_run("live")  # the rerun: the others from the store, the lost ones graded now
    assert all(v.startswith("graded") for v in rows.values()), rows
