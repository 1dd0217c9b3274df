"""One cgroup (v1) per sandbox slot: memory, CPU and tasks counted for a submission and all it starts.

Where the kernel offers cgroups v1 and we are root, each slot gets its own group in the memory,
cpu, cpuacct and pids hierarchies, below the grader's own groups. A child joins them before it
is hardened; everything it starts stays in them. The grader reads them: CPU time used (so a
deadline is counted in CPU seconds, not in a busy machine's wall clock), whether the kernel's
OOM killer ended something (so a memory failure is named as such every time). Standard library
only: the child side runs after the repository is out of sight.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

BASE = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "cpu", "cpuacct", "pids")
CPU_PERIOD_US = 100_000


def _own(controller: str) -> str | None:
    """This process's group in `controller`'s v1 hierarchy, from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
    return None


def _write(path: Path, value: object) -> None:
    path.write_text(str(value))


@dataclass
class SlotGroups:
    """The four groups of one slot; `dirs` maps a controller to its directory."""

    dirs: dict[str, str]
    # The CPU counter, kept open: the grader reads it around every call of a submission.
    _usage_fd: int | None = field(default=None, init=False, repr=False, compare=False)
    # The OOM counter, kept open too: a waiting grader reads it on every poll.
    _oom_fd: int | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def create(cls, name: str, *, memory_bytes: int, tasks: int, cpus: float) -> SlotGroups | None:
        """None where cgroups v1 are missing or not writable (not root, cgroups v2 only)."""
        if os.geteuid() != 0:
            return None
        dirs: dict[str, str] = {}
        try:
            for controller in CONTROLLERS:
                own = _own(controller)
                root = BASE / controller
                if own is None or not (root / "cgroup.procs").exists():
                    return None
                d = root / own.lstrip("/") / name
                d.mkdir(exist_ok=True)
                dirs[controller] = str(d)
            groups = cls(dirs)
            groups.configure(memory_bytes=memory_bytes, tasks=tasks, cpus=cpus)
        except OSError:
            if dirs:
                cls(dirs).remove()
            return None
        return groups

    def configure(self, *, memory_bytes: int, tasks: int, cpus: float) -> None:
        mem = Path(self.dirs["memory"])
        _write(mem / "memory.limit_in_bytes", memory_bytes)
        if (mem / "memory.memsw.limit_in_bytes").exists():  # no swapping around the limit either
            with contextlib.suppress(OSError):
                _write(mem / "memory.memsw.limit_in_bytes", memory_bytes)
        _write(Path(self.dirs["pids"]) / "pids.max", tasks)
        # At most `cpus` cores: a submission's busy loops cannot starve the grader or another sandbox.
        cpu = Path(self.dirs["cpu"])
        _write(cpu / "cpu.cfs_period_us", CPU_PERIOD_US)
        _write(cpu / "cpu.cfs_quota_us", int(cpus * CPU_PERIOD_US))

    def open_join(self) -> list[int]:
        """Descriptors through which a process can join the groups later, after /sys is out of its
        sight (a spare child opens them, then waits for its submission, and joins through them,
        `join_through`, once the slot is empty or once it has one)."""
        return [os.open(Path(d) / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for d in self.dirs.values()]

    @staticmethod
    def join_through(fds: list[int]) -> None:
        for fd in fds:
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def cpu_s(self) -> float:
        """CPU seconds used by everything that ever ran in the slot's group."""
        try:
            if self._usage_fd is None:
                self._usage_fd = os.open(Path(self.dirs["cpuacct"], "cpuacct.usage"), os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._usage_fd, 64, 0)) / 1e9
        except (OSError, ValueError):
            return 0.0

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer ended in the group so far."""
        try:
            if self._oom_fd is None:
                self._oom_fd = os.open(Path(self.dirs["memory"], "memory.oom_control"), os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self._oom_fd, 256, 0).decode()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def memory_failures(self) -> int:
        """How many times a charge met the group's memory limit so far (memory.failcnt): it grows when
        the submission reaches its cap, whether the kernel then reclaims, fails the charge or kills."""
        try:
            return int(Path(self.dirs["memory"], "memory.failcnt").read_text())
        except (OSError, ValueError):
            return 0

    def tasks(self) -> list[int]:
        try:
            return [int(x) for x in Path(self.dirs["pids"], "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def remove(self) -> None:
        for fd in (self._usage_fd, self._oom_fd):
            if fd is not None:
                os.close(fd)
        self._usage_fd = self._oom_fd = None
        for d in self.dirs.values():
            with contextlib.suppress(OSError):
                os.rmdir(d)
