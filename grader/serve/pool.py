"""The grading processes: N workers forked from the server before it serves (torch already imported and
the seed planted, so a worker costs little memory of its own), each with its own warm sandbox, each
claiming from the store; the web process only serves pages.

The server wakes them through one socket each when an upload is queued; on the same socket each
worker says which submission it graded, so a student waiting on it hears at once. They die with the
server: the kernel kills each when the server ends (even by SIGKILL), and each leaves when its socket
closes. A worker that ends alone has its claim put back in the queue for the others, and is replaced:
the server never forks once its threads run (a lock held by one would be copied held), so a nursery,
forked with the workers, forks each replacement from the same single-threaded state and hands the
server its socket (SCM_RIGHTS)."""

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

from grader.serve.store import CourseStore, ProcessIdentity
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
        self._children: set[int] = set()  # forked here (the others are the nursery's: it reaps them)
        self._born_as: dict[int, ProcessIdentity] = {}  # the nursery's workers, as the kernel knows each
        self._attached: tuple | None = None
        sys.stdout.flush()
        sys.stderr.flush()
        server = os.getpid()
        self._nursery, nursery = _fork_child(server, lambda sock: _nursery(sock, store, make), [])
        self._children.add(nursery)
        for _ in range(count):
            sock, pid = _fork_child(server, lambda sock: _serve_queue(sock, store, make),
                                    [self._nursery, *self.sockets.values()])
            self._children.add(pid)
            sock.setblocking(False)
            self.sockets[pid] = sock

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
        when a worker ended (once its claim is free); a replacement is asked of the nursery."""
        self._attached = (loop, graded, lost)
        for pid in self.sockets:
            loop.add_reader(self.sockets[pid].fileno(), self._read, pid)
        self._nursery.setblocking(False)
        loop.add_reader(self._nursery.fileno(), self._born)

    def _read(self, pid: int) -> None:
        loop, graded, lost = self._attached
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
            status = _reaped(pid, pid in self._children, self._born_as.pop(pid, None))
            self._children.discard(pid)
            if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == FAILED):  # it would fail again
                try:
                    self._nursery.send(b"n")
                except OSError:
                    _log.warning("the nursery is gone: grading worker %d is not replaced", pid)
            lost(pid, status)
            return
        *lines, self._partial[pid] = (self._partial.get(pid, b"") + data).split(b"\n")
        for line in lines:
            graded(int(line))

    def _born(self) -> None:
        """The nursery forked a replacement: its pid, and its socket's end passed over."""
        loop = self._attached[0]
        try:
            data, fds, _, _ = socket.recv_fds(self._nursery, 64, 1)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        if not data or not fds:
            loop.remove_reader(self._nursery.fileno())  # the nursery ended: no more replacements
            return
        pid = int(data)
        sock = socket.socket(fileno=fds[0])
        if (identity := ProcessIdentity.of(pid)) is not None:
            self._born_as[pid] = identity
        sock.setblocking(False)
        self.sockets[pid] = sock
        loop.add_reader(sock.fileno(), self._read, pid)
        _log.warning("grading worker %d started in place of one that ended", pid)

    def close(self, loop: asyncio.AbstractEventLoop | None = None, *, grace_s: float = 30.0) -> None:
        """Each worker finishes the grading it holds and leaves; one still busy after `grace_s` is killed
        (its claim goes back to the queue at the next start). The nursery does the same for its own."""
        for sock in [*self.sockets.values(), self._nursery]:
            if loop is not None and self._attached is not None:
                loop.remove_reader(sock.fileno())
            sock.close()
        self.sockets = {}
        _wait_for(sorted(self._children), grace_s + 5)  # the nursery's own grace, then its reaping
        self._children = set()


FAILED = 70  # a child's own failure (its sandbox would not start): a replacement would fail the same way


def _reaped(pid: int, mine: bool, identity: ProcessIdentity | None) -> int:
    """The ended worker's wait status once its process is gone, so its claim is free. The nursery's
    children are the nursery's to reap (it stops replacing once one ended by its own failure): their socket
    closes as they exit, and they are gone a moment later (a zombie counts as gone)."""
    if mine:
        return os.waitpid(pid, 0)[1]
    end = time.monotonic() + 5.0  # past it, the idle workers' next look re-queues the claim anyway
    while identity is not None and identity.alive() and time.monotonic() < end:
        time.sleep(0.001)
    return 0


def _nursery(sock: socket.socket, store: Path, make: MakeGrader) -> None:
    """Forks a fresh worker each time the server asks (one byte each), sends it the worker's pid and the
    server's end of its socket, and reaps its workers. When the server closes its end, waits for them."""
    me, children, broken = os.getpid(), set(), False
    while True:
        ready, _, _ = select.select([sock], [], [], IDLE_S)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            children.discard(pid)
            broken = broken or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == FAILED)
        if not ready:
            continue
        asked = sock.recv(64)
        if not asked:
            break
        if broken:  # a replacement ended by its own failure (its sandbox would not start): so would the next
            print("grader: a replacement grading worker failed to start; no more are started", file=sys.stderr)
            continue
        for _ in asked:
            mine, pid = _fork_child(me, lambda theirs: _serve_queue(theirs, store, make), [sock])
            children.add(pid)
            socket.send_fds(sock, [b"%d" % pid], [mine.fileno()])
            mine.close()
    _wait_for(sorted(children), 30.0)  # each finishes what it grades, its socket closed by the server


def _fork_child(parent: int, run: Callable[[socket.socket], None], held: list[socket.socket]) -> tuple[socket.socket, int]:
    """A child that runs `run` on its end of a new socket pair and dies with `parent`; `held`: the
    parent's other sockets, closed in the child. The parent's end and the child's pid."""
    mine, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            mine.close()
            for other in held:
                other.close()
            _die_with(parent)
            run(theirs)
        except BaseException as exc:  # noqa: BLE001 - a child never returns into its parent's code
            print(f"grader: a grading worker failed: {exc!r}", file=sys.stderr)
            code = FAILED
        os._exit(code)
    theirs.close()
    return mine, pid


def _wait_for(pids: list[int], grace_s: float) -> None:
    """Reaps each child; one still running after `grace_s` is killed."""
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

    def tell(sid: int) -> None:  # graded, or given up on: whoever waits on it hears at once
        sock.sendall(b"%d\n" % sid)

    worker = start_worker(store, given_up=tell)
    try:
        while True:
            while (sid := grade_one(store, grade, worker=worker, present=present)) is not None:
                tell(sid)
            if store.requeue_abandoned(given_up=tell):  # a worker died holding a claim: it is ours to take now
                continue
            ready, _, _ = select.select([sock], [], [], IDLE_S)
            if ready and not sock.recv(4096):
                return  # the server closed its end: it is stopping
    except (BrokenPipeError, ConnectionResetError):
        return  # the server is gone
