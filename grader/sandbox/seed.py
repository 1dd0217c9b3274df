"""The seed: a pristine copy of the grader, forked right after `import torch`; every warm server
(zygote) is forked from it, so a process pays for torch once.

Starting a zygote as a fresh interpreter imports torch a second time: on a cold `check` or a
Gradescope `grade` that doubled the run time. The seed is forked by `plant()` before the grader
reads a rubric, a secret or a submission, and then forgets its environment (the strings
themselves, not only `os.environ`), so a zygote and its children inherit the interpreter, torch
and the grader's code: nothing secret. Zygotes are asked for by `Sandbox.start` (one per
sandbox, and a fresh one after a server died) and are the seed's children, not the grader's.

Without a seed (a notebook, a test, an embedding program) `Sandbox` starts its zygote as a
fresh interpreter with an empty environment, as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import os
import signal
import socket
import sys
import tempfile
import threading
import time

from grader.sandbox import zygote as zy

_seed: tuple[int, socket.socket] | None = None
# One request and its reply at a time on the seed's socket: a class run's sandbox threads ask from one
# process, and `grade --jobs N` forks N judging processes that share the socket. The thread lock
# serialises one process's threads; a POSIX record lock on a file made at planting (locks belong to a
# process, so each forked judge holds it in turn) serialises the processes.
_asking = threading.Lock()
_ask_lock_fd: int | None = None
_EMPTY_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def plant() -> None:
    """Fork the seed now: after importing torch, before reading any rubric, secret or submission.

    Only a POSIX process whose own state is known clean may call it (the CLI does); a notebook
    kernel or a test process holds whatever its user put there, and keeps the spawning path."""
    global _seed, _ask_lock_fd
    if _seed is not None or not hasattr(os, "fork"):
        return
    import torch  # noqa: F401 - the point of the seed: the zygote inherits it imported

    mine, theirs = socket.socketpair()
    # Buffered output would be written twice, once by each process.
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            mine.close()
            _grow(theirs)
        except BaseException:  # noqa: BLE001 - the seed never returns into the grader's code
            code = 70
        os._exit(code)
    theirs.close()
    _seed = (pid, mine)
    if _ask_lock_fd is None:
        with contextlib.suppress(OSError):  # no writable temporary folder: only one judging process asks
            fd, path = tempfile.mkstemp(prefix="grader-seed-")
            os.unlink(path)  # nameless: nobody else can lock it; a fork keeps it (the judges), an exec does not
            _ask_lock_fd = fd


def uproot() -> None:
    """Let the seed go (zygotes already forked from it keep running); it exits on end of stream."""
    global _seed
    if _seed is not None:
        _seed[1].close()
        _seed = None


def planted() -> bool:
    return _seed is not None


def shareable() -> bool:
    """Whether processes forked from this one may ask the seed for zygotes (its lock exists), or need not."""
    return _seed is None or _ask_lock_fd is not None


def fork_zygote(config: dict, fd: int) -> int | None:
    """Ask the seed for a zygote serving on `fd`; its pid, or None without a (live) seed."""
    if _seed is None:
        return None
    sock = _seed[1]
    with _asking, _across_processes():
        try:
            zy.send(sock, {"op": "zygote", "config": config}, [fd])
            reply, _ = zy.recv(sock)
        except OSError:
            reply = None
    if reply is None or not reply.get("pid"):
        uproot()  # it is gone: callers fall back to a fresh interpreter
        return None
    return int(reply["pid"])


@contextlib.contextmanager
def _across_processes():
    if _ask_lock_fd is None:
        yield
        return
    fcntl.lockf(_ask_lock_fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.lockf(_ask_lock_fd, fcntl.LOCK_UN)


def alive(pid: int) -> bool:
    """Whether a zygote forked by the seed still runs. The seed reaps its children at once; one
    orphaned by the seed's exit waits for the machine's init to reap it, which may take seconds
    (or never happen, in a container without an init), so an exited zombie counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc here: only the signal says, and it says the pid exists
    return state not in (b"Z", b"X")


def wait_gone(pid: int, timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while alive(pid):
        if time.monotonic() >= end:
            return False
        time.sleep(0.002)
    return True


# -- inside the seed -----------------------------------------------------------------------------
def _grow(sock: socket.socket) -> None:
    _forget_environment()
    # Ctrl-C in the terminal reaches the whole process group: the grader answers it; the seed and
    # its zygotes end when the grader's sockets close. Zygotes vanish on exit (no zombies to reap).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    _close_fds_except(sock.fileno())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.chdir("/")
    zy.prepare()  # one thread, operations warmed up, then frozen: every zygote inherits it
    while True:
        msg, fds = zy.recv(sock, maxfds=1)
        if msg is None:
            return
        if msg.get("op") != "zygote" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                sock.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote waits for its children
                zy.serve(msg["config"], socket.socket(fileno=fds[0]))
            except BaseException:  # noqa: BLE001 - a zygote never returns into the seed's loop
                code = 70
            os._exit(code)
        os.close(fds[0])
        zy.send(sock, {"pid": pid})


def _forget_environment() -> None:
    """Overwrite every copy of the environment this process holds, then leave a minimal one.

    A fork shares the grader's memory: `os.environ` (whose bytes are also `posix.environ`) and
    the block the kernel wrote at exec, which `/proc/self/environ` and a memory scan both reach.
    Nothing before `plant()` has read a variable into another object."""
    for blob in getattr(os.environ, "_data", {}).values():
        _wipe_bytes(blob)
    os.environ.clear()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, ValueError):
            with open("/proc/self/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            # Fields 50 and 51 of stat (env_start, env_end); the split starts at field 3.
            start, end = int(fields[47]), int(fields[48])
            if 0 < start < end:
                ctypes.memset(start, 0, end - start)
    os.environ.update(_EMPTY_ENV)
    gc.collect()


_BYTES_OFFSET = sys.getsizeof(b"") - 1  # CPython: the header before a bytes object's data


def _wipe_bytes(blob: object) -> None:
    if not isinstance(blob, bytes) or len(blob) < 2:  # CPython shares the empty and 1-byte objects
        return
    address = id(blob) + _BYTES_OFFSET
    if ctypes.string_at(address, len(blob)) == blob:  # only where the layout is the one we expect
        ctypes.memset(address, 0, len(blob))


def _close_fds_except(keep: int) -> None:
    """Descriptors the grader had open (a results file, a notebook's sockets) are not the seed's."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2 and fd != keep:
            with contextlib.suppress(OSError):
                os.close(fd)
