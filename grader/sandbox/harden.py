"""Child-side hardening: everything a forked child does to itself before student code runs.

Order matters and is fixed by `harden`: read the submission, enter namespaces, hide paths,
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
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV = 1, 2, 4
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
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


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def enter_namespaces() -> None:
    """New mount and network namespaces; mounts made here never propagate back to the host."""
    unshare(CLONE_NEWNS | CLONE_NEWNET)
    mount("none", "/", None, MS_REC | MS_PRIVATE)


def _outermost(paths: list[Path]) -> list[Path]:
    return [p for p in paths if not any(q in p.parents for q in paths)]


def _cover(target: Path, inside: list[Path], options: str = "size=64k,nr_inodes=256,mode=755") -> None:
    """Replace `target` by an empty tmpfs (a file by /dev/null) and bind back only the kept
    directories `inside` it: two mounts for a whole checkout instead of one per entry."""
    if not target.is_dir():
        mount("/dev/null", str(target), None, MS_BIND)
        return
    handles = [(k, os.open(k, os.O_PATH)) for k in inside]  # taken before the cover hides them
    mount("sandbox-cover", str(target), "tmpfs", MS_NOSUID | MS_NODEV, options)
    for k, fd in handles:
        os.makedirs(k, mode=0o755, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", str(k), None, MS_BIND | MS_REC)
        os.close(fd)


def hide(targets: list[str], keep: list[str]) -> None:
    """Cover every target, except the kept paths (the interpreter, the venv) inside them."""
    kept = [Path(os.path.realpath(k)) for k in keep if os.path.exists(k)]
    for raw in targets:
        target = Path(os.path.realpath(raw))
        if not os.path.lexists(target) or target in kept:
            continue
        _cover(target, _outermost([k for k in kept if target in k.parents]))


def private_tmp(keep: list[str]) -> None:
    """Fresh /tmp and /dev/shm; a kept path below them (a checkout in /tmp, say) is bound back in."""
    kept = [Path(os.path.realpath(k)) for k in keep if os.path.exists(k)]
    # /tmp root-owned 755: the child writes only in its scratch dir below it.
    for d, mode in (("/tmp", "755"), ("/dev/shm", "1777")):
        if os.path.isdir(d):
            inside = _outermost([k for k in kept if Path(d) in k.parents])
            _cover(Path(d), inside, f"size=64m,mode={mode}")


def _closed_ancestor(path: Path) -> Path | None:
    """The first directory on the way to `path` that other users cannot enter (e.g. /root)."""
    for d in [*reversed(path.parents), path]:
        if not os.stat(d).st_mode & stat.S_IXOTH:
            return d
    return None


def blocked_keep_paths(keep: list[str]) -> list[str]:
    """Kept paths the slot uid could not reach, e.g. a pyenv interpreter under /root."""
    return [k for k in keep if os.path.exists(k) and _closed_ancestor(Path(os.path.realpath(k)))]


def expose(keep: list[str]) -> None:
    """Make every kept path reachable by the slot uid: cover a closed ancestor (say /root)
    with a 755 tmpfs and bind the kept path back into it. The rest of the ancestor stays hidden."""
    groups: dict[Path, list[Path]] = {}
    for k in _outermost(sorted({Path(os.path.realpath(k)) for k in keep if os.path.exists(k)})):
        closed = _closed_ancestor(k)
        if closed is not None:
            groups.setdefault(closed, []).append(k)
    for closed, paths in groups.items():
        if closed in paths:
            continue  # the kept directory itself is closed: nothing outside it to open
        _cover(closed, paths)


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


def probe_namespaces() -> bool:
    """In a throwaway child: can we unshare and make mounts private? (root in a container: yes)."""
    if _libc is None or os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            enter_namespaces()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
