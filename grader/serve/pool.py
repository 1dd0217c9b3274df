"""The grading processes: N workers forked from the server before it serves (torch already imported and
the seed planted, so a worker costs little memory of its own), each with its own warm sandbox, each
claiming from the store; the web process only serves pages.

The server wakes them through one socket each when an upload is queued; on the same socket each
worker says which submission it graded, so a student waiting on it hears at once. They die with the
server: the kernel kills each when the server ends (even by SIGKILL), and each leaves when its socket
closes. A worker that ends alone has its claim put back in the queue for the others."""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from grader.serve.store import CourseStore
from grader.serve.worker import Grade, Present, grade_one, start_worker

IDLE_S = 1.0  # an idle worker looks this often for claims left by a worker that died
_PR_SET_PDEATHSIG = 1
_log = logging.getLogger("grader.serve")

# Called inside each worker, after the fork: its grader (its own warm sandbox) and what it renders.
MakeGrader = Callable[[], tuple[Grade, Present | None]]


class Workers:
    """Forked from the main thread before any other thread starts (uvicorn's loop included), so no lock
    is copied held."""

    def __init__(self, store: Path, make: MakeGrader, count: int):
        self.sockets: dict[int, socket.socket] = {}  # worker pid -> the server's end of its socket
        self._partial: dict[int, bytes] = {}
        sys.stdout.flush()
        sys.stderr.flush()
        server = os.getpid()
        for _ in range(count):
            mine, theirs = socket.socketpair()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    mine.close()
                    for other in self.sockets.values():
                        other.close()
                    _die_with(server)
                    _serve_queue(theirs, store, make)
                except BaseException as exc:  # noqa: BLE001 - a worker never returns into the server's code
                    print(f"grader: a grading worker failed: {exc!r}", file=sys.stderr)
                    code = 70
                os._exit(code)
            theirs.close()
            mine.setblocking(False)
            self.sockets[pid] = mine

    def wake(self) -> None:
        """An upload is queued: every idle worker looks (one claims it; the claim is atomic)."""
        for sock in self.sockets.values():
            try:
                sock.send(b"w")
            except OSError:  # its buffer is full of wake-ups already, or it is gone (its reader says so)
                pass

    def attach(self, loop: asyncio.AbstractEventLoop, graded: Callable[[int], None],
               lost: Callable[[int, int], None]) -> None:
        """In the server's loop: `graded(id)` for each submission a worker graded; `lost(pid, status)`
        when a worker ended (after it is reaped, so its claim is free)."""
        for pid, sock in self.sockets.items():
            loop.add_reader(sock.fileno(), self._read, loop, pid, graded, lost)

    def _read(self, loop: asyncio.AbstractEventLoop, pid: int, graded: Callable[[int], None],
              lost: Callable[[int, int], None]) -> None:
        sock = self.sockets[pid]
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(sock.fileno())
            sock.close()
            del self.sockets[pid]
            _, status = os.waitpid(pid, 0)  # its socket closes only as it exits
            lost(pid, status)
            return
        *lines, self._partial[pid] = (self._partial.get(pid, b"") + data).split(b"\n")
        for line in lines:
            graded(int(line))

    def close(self, loop: asyncio.AbstractEventLoop | None = None, *, grace_s: float = 30.0) -> None:
        """Each worker finishes the grading it holds and leaves; one still busy after `grace_s` is killed
        (its claim goes back to the queue at the next start)."""
        for sock in self.sockets.values():
            if loop is not None:
                loop.remove_reader(sock.fileno())
            sock.close()
        pids, self.sockets = list(self.sockets), {}
        end = time.monotonic() + grace_s
        for pid in pids:
            try:
                while os.waitpid(pid, os.WNOHANG) == (0, 0):
                    if time.monotonic() > end:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        break
                    time.sleep(0.05)
            except ChildProcessError:  # already reaped
                pass


def _die_with(server: int) -> None:
    """The kernel kills this worker when the server ends (Linux; elsewhere the socket's end says it)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != server:  # the server ended before the request took hold
        os._exit(0)
    # Ctrl-C reaches the whole process group: the server stops the workers, each after its grading.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve_queue(sock: socket.socket, store_path: Path, make: MakeGrader) -> None:
    store = CourseStore(store_path)  # its own connection: the server's is never used across the fork
    grade, present = make()
    worker = start_worker(store)
    try:
        while True:
            while (sid := grade_one(store, grade, worker=worker, present=present)) is not None:
                sock.sendall(b"%d\n" % sid)
            if store.requeue_abandoned():  # a worker died holding a claim: it is ours to take now
                continue
            ready, _, _ = select.select([sock], [], [], IDLE_S)
            if ready and not sock.recv(4096):
                return  # the server closed its end: it is stopping
    except (BrokenPipeError, ConnectionResetError):
        return  # the server is gone
