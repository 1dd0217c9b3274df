"""Child-side hardening: everything a forked child does to itself before student code runs.

Order matters and is fixed by `harden`: read the submission, join the slot's cgroups, enter namespaces, build a new root,
build the scratch dir, arrange descriptors, set rlimits, drop privileges. Only the standard
library is used here, so nothing from the (soon hidden) repository has to be imported.
"""

from __future__ import annotations

import ctypes
import io
import os
import resource
import signal
import stat
import sys
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine)
# What a child's root holds: the system's programs and libraries, read-only; nothing else of the host.
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc")
DEVICES = ("null", "zero", "full", "random", "urandom")
# Private, size-capped scratch areas (tmpfs, charged to the child's memory cgroup); all else is read-only.
SCRATCH_MOUNTS = {"tmp": "755", "var/tmp": "1777", "dev/shm": "1777", "run/lock": "1777"}
SCRATCH_SIZE = "64m"
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38

# Fixed descriptor numbers in the child: 0 /dev/null, 1 and 2 the output file.
INBOX_FD, OUTBOX_FD = 3, 4
READY_FD = 5  # to the zygote: "ok" once hardened, closed before student code runs
SCRATCH_NS = "/tmp/sandbox"  # inside the child's private /tmp
SOURCE_NAME = "submission.py"

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg: int) -> None:
    if _libc is not None:
        _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl({option})")


def unshare(flags: int) -> None:
    if _libc is None:
        raise OSError("unshare needs Linux")
    _check(_libc.unshare(flags), "unshare")


def setns(fd: int, flags: int) -> None:
    _check(_libc.setns(fd, flags), "setns")


def enter_user_namespace(uid: int, gid: int) -> None:
    """Without root: a user namespace in which this (single-threaded) process is root over its own
    uid only. Mount, PID, network and IPC namespaces and the new root then work as for root;
    there is no other uid to drop to, and no cgroup to join."""
    unshare(CLONE_NEWUSER)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def enter_namespaces() -> None:
    """New mount, network, IPC and UTS namespaces (the PID namespace was chosen by the zygote
    before the fork); mounts made here never propagate back to the host, and SysV IPC objects
    die with the last process of the namespace."""
    unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    mount("none", "/", None, MS_REC | MS_PRIVATE)


def _bind(fd: int, target: str, *, readonly: bool = True) -> None:
    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if readonly:
        mount("none", target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _pivot_root(new: str, old: str) -> None:
    if _SYS_PIVOT_ROOT is None:
        raise OSError("pivot_root: unknown architecture")
    _check(_libc.syscall(_SYS_PIVOT_ROOT, new.encode(), old.encode()), "pivot_root")


def new_root(keep: list[str], *, own_pids: bool = True, hidden: list[str] = ()) -> None:
    """Replace the child's view of the filesystem by a fresh root that holds only the system's
    programs and libraries and the kept paths (the interpreter and its packages), all
    read-only, a new /proc for its PID namespace, a minimal /dev, and private size-capped
    scratch areas. Nothing else of the host exists in it: no repository, no submissions, no
    rubric, no output folder, no platform metadata, and the mount table (/proc/self/mountinfo)
    lists only what is bound in. A hidden path that lies inside a kept one (the grader installed
    into the venv, its rubric among its data files) is covered by an empty one. The old root is
    detached, so no path leads back to it."""
    handles: list[tuple[str, int]] = []  # (path inside the new root, O_PATH handle), taken first
    links: list[tuple[str, str]] = []
    for name in SYSTEM_DIRS:
        path = f"/{name}"
        if os.path.islink(path):
            links.append((name, os.readlink(path)))
        elif os.path.isdir(path):
            handles.append((name, os.open(path, os.O_PATH)))
    covered = [Path(f"/{name}") for name, _ in handles]
    kept_handles: list[tuple[str, int]] = []  # bound after the scratch areas, which may lie above them
    kept = sorted({Path(os.path.realpath(k)) for k in keep if os.path.exists(k)})
    for k in _outermost(kept):
        if not any(c == k or c in k.parents for c in covered):
            kept_handles.append((str(k).lstrip("/"), os.open(k, os.O_PATH)))
    devices = [(d, os.open(f"/dev/{d}", os.O_PATH)) for d in DEVICES if os.path.exists(f"/dev/{d}")]
    # Without a PID namespace of its own (a user namespace cannot leave its parent's) a new /proc
    # cannot be mounted: the host's is bound in, read-only, and shows the host's processes.
    host_proc = None if own_pids else os.open("/proc", os.O_PATH)
    covers = sorted({Path(os.path.realpath(h)) for h in hidden if os.path.lexists(h)})  # while the host is in sight
    # The new root is built on a tmpfs over /tmp: the host's /tmp is already out of sight below it.
    root = "/tmp"
    mount("sandbox-root", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    for name, fd in handles:
        target = f"{root}/{name}"
        os.makedirs(target, mode=0o755, exist_ok=True)
        _bind(fd, target)
        os.close(fd)
    for name, dest in links:
        os.symlink(dest, f"{root}/{name}")
    os.makedirs(f"{root}/dev", mode=0o755)
    mount("sandbox-dev", f"{root}/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=755")
    for name, fd in devices:
        open(f"{root}/dev/{name}", "w").close()
        _bind(fd, f"{root}/dev/{name}", readonly=False)
        os.close(fd)
    for name, dest in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                       ("stderr", "/proc/self/fd/2")):
        os.symlink(dest, f"{root}/dev/{name}")
    for name, mode in SCRATCH_MOUNTS.items():
        target = f"{root}/{name}"
        os.makedirs(target, mode=0o755, exist_ok=True)
        # noexec: nothing written here is ever mapped as code (a native library dropped by the submission).
        mount("sandbox-scratch", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              f"size={SCRATCH_SIZE},nr_inodes=4096,mode={mode}")
    # A checkout or interpreter under /tmp (a CI clone) stays reachable inside the private /tmp.
    for name, fd in kept_handles:
        target = f"{root}/{name}"
        os.makedirs(target, mode=0o755, exist_ok=True)
        _bind(fd, target)
        os.close(fd)
    covered += [Path(f"/{name}") for name, _ in kept_handles]
    for h in covers:
        if any(c == h or c in h.parents for c in covered) and os.path.exists(target := f"{root}{h}"):
            if os.path.isdir(target):
                mount("sandbox-hidden", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      "size=4k,nr_inodes=1,mode=555")
            else:
                mount("/dev/null", target, None, MS_BIND)
    os.makedirs(f"{root}/proc", mode=0o555)
    if host_proc is None:
        mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    else:
        mount(f"/proc/self/fd/{host_proc}", f"{root}/proc", None, MS_BIND | MS_REC)
        os.close(host_proc)
    os.makedirs(f"{root}/.old")
    _pivot_root(root, f"{root}/.old")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount /.old")
    os.rmdir("/.old")
    # The root itself read-only: the child writes only in its scratch areas.
    mount("none", "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _outermost(paths: list[Path]) -> list[Path]:
    return [p for p in paths if not any(q in p.parents for q in paths)]


def _closed_ancestor(path: Path) -> Path | None:
    """The first directory on the way to `path` that other users cannot enter (e.g. /root)."""
    for d in [*reversed(path.parents), path]:
        if not os.stat(d).st_mode & stat.S_IXOTH:
            return d
    return None


def blocked_keep_paths(keep: list[str]) -> list[str]:
    """Kept paths the slot uid could not reach, e.g. a pyenv interpreter under /root."""
    return [k for k in keep if os.path.exists(k) and _closed_ancestor(Path(os.path.realpath(k)))]


def read_source(fd: int, cap: int) -> bytes:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("the submission is not a regular file")
    if st.st_size > cap:
        raise ValueError(f"the submission is {st.st_size} bytes, over the {cap}-byte cap")
    return os.pread(fd, cap + 1, 0)


def make_scratch(path: str, source: bytes, uid: int | None) -> str:
    os.makedirs(path, mode=0o700, exist_ok=True)
    file = os.path.join(path, SOURCE_NAME)
    with open(file, "wb") as f:
        f.write(source)
    if uid is not None:
        os.chown(path, uid, uid)
        os.chown(file, uid, uid)
    return file


def arrange_fds(inbox: int, outbox: int, output: int, ready: int) -> None:
    """Only the two pipe ends, the output file and the ready pipe survive, at fixed numbers."""
    high = [os.dup(fd) for fd in (inbox, outbox, output, ready)]
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(high[2], 1)
    os.dup2(high[2], 2)
    os.dup2(high[0], INBOX_FD)
    os.dup2(high[1], OUTBOX_FD)
    os.dup2(high[3], READY_FD)
    os.closerange(READY_FD + 1, max(os.sysconf("SC_OPEN_MAX"), 1024))
    for fd in (INBOX_FD, OUTBOX_FD):
        os.set_inheritable(fd, True)


class _CappedRaw(io.RawIOBase):
    """fd 1 up to a byte cap, then one marker; later writes are dropped but reported as done,
    so a chatty submission is still graded instead of dying on EFBIG."""

    def __init__(self, cap: int) -> None:
        self.left = cap
        self.marked = False

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        n = len(b)
        if self.left > 0:
            chunk = bytes(b[: self.left])
            self.left -= len(chunk)
            try:
                os.write(1, chunk)
            except OSError:
                self.left = 0
        elif not self.marked:
            self.marked = True
            try:
                os.write(1, b"\n[output truncated]\n")
            except OSError:
                pass
        return n


def capped_stdio(cap: int) -> None:
    text = io.TextIOWrapper(_CappedRaw(cap), encoding="utf-8", errors="backslashreplace", write_through=True)
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = text
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BytesIO(b""))


def clean_env(scratch: str) -> None:
    """Nothing of the grader's environment (GRADER_SECRET...) reaches student code."""
    os.environ.clear()
    os.environ.update(
        PATH="/usr/bin:/bin",
        HOME=scratch,
        TMPDIR=scratch,
        USER="student",  # getpass.getuser() must not need a passwd entry for the slot uid
        LANG="C.UTF-8",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    # tempfile keeps the folder it found first: a fork of a process that had asked (pytest, a library)
    # would send the child's mkdtemp to its private /tmp, which the slot user cannot write, not to TMPDIR.
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None


def vm_size() -> int:
    """Bytes this process maps now (VmSize), the base the address-space limit is set above."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def set_rlimits(*, as_bytes: int, cpu_s: int, nproc: int, nofile: int, fsize: int) -> None:
    limits = {
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_CPU: (cpu_s, cpu_s + 1),  # soft sends SIGXCPU, hard a SIGKILL one second later
        resource.RLIMIT_NOFILE: (nofile, nofile),
        resource.RLIMIT_FSIZE: (fsize, fsize),
    }
    if as_bytes:
        limits[resource.RLIMIT_AS] = (as_bytes, as_bytes)
    if hasattr(resource, "RLIMIT_NPROC"):
        limits[resource.RLIMIT_NPROC] = (nproc, nproc)
    for which, (soft, hard) in limits.items():
        _, old_hard = resource.getrlimit(which)
        if old_hard != resource.RLIM_INFINITY:
            hard = min(hard, old_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
    # Over the file cap a write fails with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError("could not drop privileges")


def probe_namespaces(keep: list[str], *, own_pids: bool = True) -> bool:
    """In a throwaway child, the whole sequence a sandboxed child goes through: a new PID
    namespace (`own_pids`), then mount, network, IPC and UTS namespaces and a new root. All or nothing."""
    if _libc is None or os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            own = os.open("/proc/self/ns/pid", os.O_RDONLY)
            if own_pids:
                unshare(CLONE_NEWPID)
            inner = os.fork()
            if inner == 0:
                inner_code = 1
                try:
                    enter_namespaces()
                    new_root(keep, own_pids=own_pids)
                    inner_code = 0 if (os.getpid() == 1 or not own_pids) and os.path.exists(sys.executable) else 1
                finally:
                    os._exit(inner_code)
            if own_pids:
                setns(own, CLONE_NEWPID)
            _, status = os.waitpid(inner, 0)
            code = 0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
