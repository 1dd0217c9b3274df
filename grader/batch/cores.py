"""How many cores this process may use: the CPU affinity mask, capped by the cgroup's CPU quota.

`os.cpu_count()` counts the machine's cores; a container or a batch scheduler often grants fewer, by
affinity (cpuset, taskset, Slurm's --cpus-per-task) or by quota (Docker's --cpus, Kubernetes' CPU
limit: cgroup v2's cpu.max, v1's cpu.cfs_quota_us over cpu.cfs_period_us). More judging processes
than granted cores only queue for them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path


def usable_cores(cgroup_root: Path = Path("/sys/fs/cgroup"), proc_cgroup: Path = Path("/proc/self/cgroup")) -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity call on this platform
        cores = os.cpu_count() or 1
    quota = cgroup_quota(cgroup_root, proc_cgroup)
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def cgroup_quota(cgroup_root: Path, proc_cgroup: Path) -> float | None:
    """The CPU quota in cores of this process's cgroup (v2 or v1), or None where none is set or readable."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":
            fields = _first_readable(cgroup_root, path, "cpu.max")
            if fields and len(fields) == 2 and fields[0] != "max":
                return _ratio(fields[0], fields[1])
        elif "cpu" in controllers.split(","):
            mount = next((cgroup_root / d for d in (controllers, "cpu", "cpu,cpuacct")
                          if (cgroup_root / d).is_dir()), None)
            if mount is None:
                continue
            quota = _first_readable(mount, path, "cpu.cfs_quota_us")
            period = _first_readable(mount, path, "cpu.cfs_period_us")
            if quota and period and quota[0] != "-1":
                return _ratio(quota[0], period[0])
    return None


def _first_readable(mount: Path, path: str, name: str) -> list[str] | None:
    """The file for this cgroup, or the mount's own where the container sees its cgroup as the root
    (/proc/self/cgroup then names the host's path, absent here)."""
    for folder in (mount / path.lstrip("/"), mount):
        try:
            return (folder / name).read_text().split()
        except OSError:
            continue
    return None


def _ratio(quota: str, period: str) -> float | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None
