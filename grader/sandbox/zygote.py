"""The warm server: holds torch imported, then forks one hardened child per submission.

It is forked from the seed (`seed.py`: a copy of the grader taken before any secret was read,
its environment wiped) or, without a seed, started as a fresh interpreter with an empty
environment; either way it holds nothing secret, since a child inherits all of its memory. It talks to the grader over one Unix
socket (length-prefixed JSON, descriptors passed alongside) and never reads a child's pipes.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from grader.sandbox import harden, syscalls
from grader.sandbox.cgroups import SlotGroups
from grader.sandbox.framing import LENGTH, length_of, prefixed
from grader.sandbox.models import Limits
from grader.vocabulary import Isolation

MAX_MESSAGE = 1 << 20


class RunRequest(BaseModel):
    """Fork a child for one submission. Descriptors sent with it: source, inbox (read end),
    outbox (write end), output file."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["run"] = "run"
    limits: Limits
    hidden: list[str] = []


class KillRequest(BaseModel):
    """Kill a child and everything it started; answer how it ended. `grace_s` lets a child
    that is already exiting finish, so a natural exit is not mistaken for our kill."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["kill"] = "kill"
    pid: int
    grace_s: float = 0.0
    # False: answer at once and reap later (before the next fork); for a child whose status
    # nobody needs, so its teardown overlaps the grader's checking instead of delaying it.
    wait: bool = True


class Hello(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pid: int
    isolation: Isolation
    syscall_filter: bool = False  # every child runs under `syscalls.REFUSED`


class Exit(BaseModel):
    """How a child ended, as far as the kernel saw: informative only, never a verdict."""

    model_config = ConfigDict(extra="forbid")
    killed_by_us: bool
    signal: int | None = None
    code: int | None = None
    cpu_s: float | None = None


def send(sock: socket.socket, payload: dict[str, Any], fds: list[int] = ()) -> None:
    data = json.dumps(payload).encode()
    msg = prefixed(data)
    if fds:
        socket.send_fds(sock, [msg], list(fds))
    else:
        sock.sendall(msg)


def recv(sock: socket.socket, maxfds: int = 0) -> tuple[dict[str, Any] | None, list[int]]:
    """One message and the descriptors that came with it; (None, []) at end of stream."""
    head, fds, _, _ = socket.recv_fds(sock, LENGTH.size, maxfds) if maxfds else (sock.recv(LENGTH.size), [], 0, 0)
    if not head:
        return None, fds
    while len(head) < LENGTH.size:
        more = sock.recv(LENGTH.size - len(head))
        if not more:
            return None, fds
        head += more
    n = length_of(head)
    if n > MAX_MESSAGE:
        raise ValueError("control message too large")
    body = b""
    while len(body) < n:
        more = sock.recv(n - len(body))
        if not more:
            return None, fds
        body += more
    return json.loads(body), fds


@dataclass
class _Spare:
    """A child forked ahead of its submission: in its own session, namespaces and new root, with no
    limits yet, waiting on `ctl` for the request and its descriptors. It joins the slot's groups when
    told to (`join_spare`: the slot is empty), else with its submission. No student code has run in it;
    everything that depends on the submission happens after."""

    pid: int
    ctl: socket.socket  # our end: the run request and its four descriptors go here
    ready: int  # read end of its ready pipe: "ok" once hardened, else what went wrong
    scratch: str
    joined: bool = False  # told to join the slot's groups ahead of its submission


class Zygote:
    def __init__(
        self, sock: socket.socket, runner: str, hidden: list[str], keep: list[str], uid: int, isolate: bool,
        groups: dict[str, str] | None = None, userns: bool = False, syscall_filter: bool = True,
    ) -> None:
        self.sock = sock
        self.groups = SlotGroups(groups) if groups else None
        self.hidden = hidden
        self.keep = keep
        self.uid = uid
        self.runs = 0
        self.scratch: dict[int, str] = {}
        self.dying: set[int] = set()
        self.ready_fd: int | None = None  # in a child, until it is hardened
        self.spare: _Spare | None = None  # the next submission's child, prepared while this one runs
        self.serve = _load_runner(runner)
        # Compiled once here; each child loads it last, just before the submission is imported.
        self.filter = syscalls.program() if isolate and syscall_filter else None
        # A user namespace cannot return to its parent's PID namespace after making one: no PID namespaces there.
        self.own_pids = not userns
        self.namespaces = isolate and harden.probe_namespaces(keep, own_pids=self.own_pids)
        # Each child is PID 1 of a new PID namespace: nothing it starts outlives it, and it sees no other process.
        self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY) if self.namespaces and self.own_pids else None
        # Without namespaces a dropped uid must still reach the interpreter (not so under /root).
        # In a user namespace we are root over our own uid only: nothing to drop to.
        self.root = (isolate and not userns and os.geteuid() == 0
                     and (self.namespaces or not harden.blocked_keep_paths(keep)))
        self.isolation = (
            ("namespaces+userns" if userns else "namespaces+uid") if self.namespaces
            else "uid+rlimits" if self.root else "rlimits-only"
        )
        # Non-root, RLIMIT_NPROC counts every task of the user: leave room for what already runs.
        # The spare waiting beside a running child is one more of them.
        self.nproc_base = 0 if os.geteuid() == 0 and not userns else _user_tasks() + 1

    def loop(self) -> None:
        send(
            self.sock,
            Hello(pid=os.getpid(), isolation=self.isolation, syscall_filter=self.filter is not None).model_dump(),
        )
        self.replenish()  # while the grader builds its probes
        self.join_spare()
        while True:
            msg, fds = recv(self.sock, maxfds=4)
            if msg is None:
                break
            if msg.get("op") == "run":
                req = RunRequest.model_validate(msg)
                self.settle()
                try:
                    pid, error = self.fork_child(req, fds)
                finally:
                    for fd in fds:
                        os.close(fd)
                send(self.sock, {"pid": pid, "error": error})
                self.replenish()  # the next child's fork and new root overlap this one's calls
            elif msg.get("op") == "kill":
                req = KillRequest.model_validate(msg)
                if req.wait:
                    send(self.sock, self.kill(req.pid, req.grace_s).model_dump())
                else:
                    _signal(-req.pid)
                    _signal(req.pid)
                    self.dying.add(req.pid)
                    send(self.sock, Exit(killed_by_us=True).model_dump())
                    self.settle()  # while the grader checks the replies
                self.join_spare()
            else:
                raise ValueError(f"unknown op {msg.get('op')!r}")
        self.settle()
        for pid in list(self.scratch):
            self.kill(pid, 0.0)
        self.drop_spare()

    def replenish(self) -> None:
        if self.spare is None:
            self.spare = self.fork_spare()

    def join_spare(self) -> None:
        """Once no child is left, the spare joins the slot's groups now, while the grader judges: a move into
        a memory cgroup waits for an RCU grace period (10-20 ms here), which would otherwise sit between
        the next submission's hand-over and its import. Nothing of the last submission is left to share them."""
        spare = self.spare
        if self.groups is None or spare is None or spare.joined or self.scratch or self.dying:
            return
        spare.joined = True
        with contextlib.suppress(OSError):
            send(spare.ctl, {"op": "join"})  # a spare that died meanwhile is replaced at the hand-over

    def drop_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is not None:
            self._discard(spare)

    def _discard(self, spare: _Spare) -> None:
        """A spare that will not be used (the server ends, or it died waiting): gone, reaped, cleaned."""
        spare.ctl.close()
        os.close(spare.ready)
        _signal(spare.pid)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(spare.pid, 0)
        if not self.namespaces:
            shutil.rmtree(spare.scratch, ignore_errors=True)

    def settle(self) -> None:
        """Before a new child: every earlier child and all it started are dead and reaped."""
        for pid in sorted(self.dying):
            self.kill(pid, 0.0)
        self.dying.clear()

    def fork_child(self, req: RunRequest, fds: list[int]) -> tuple[int, str | None]:
        """Hand the request to the spare (a fresh one if it is missing or died), wait until it is hardened."""
        spare, self.spare = self.spare, None
        if spare is not None and _reap(spare.pid) is not None:  # died while waiting (killed from outside)
            self._discard(spare)
            spare = None
        spare = spare or self.fork_spare()
        try:
            send(spare.ctl, req.model_dump(), fds)
        except OSError:
            pass  # it is gone: its ready pipe says so
        finally:
            spare.ctl.close()
        self.scratch[spare.pid] = spare.scratch
        return spare.pid, _ready(spare.ready)

    def fork_spare(self) -> _Spare:
        self.runs += 1
        scratch = harden.SCRATCH_NS
        if not self.namespaces:
            scratch = tempfile.mkdtemp(prefix=f"grader-sandbox-{os.getpid()}-{self.runs}-")
        ctl, theirs = socket.socketpair()
        ready_r, ready_w = os.pipe()
        if self.own_pid_ns is not None:
            harden.unshare(harden.CLONE_NEWPID)  # for the next fork only: we go back right after it
        pid = -1
        try:
            pid = os.fork()
        finally:
            if self.own_pid_ns is not None and pid != 0:
                harden.setns(self.own_pid_ns, harden.CLONE_NEWPID)
        if pid == 0:
            code = 70
            self.ready_fd = ready_w
            try:
                os.close(ready_r)
                ctl.close()
                self.sock.close()  # the grader must see the server's end close when the server dies
                code = self.spare_child(theirs, scratch)
            except BaseException as exc:  # noqa: BLE001 - a child never returns into the server loop
                if self.ready_fd is not None:  # still hardening: the zygote is listening
                    with contextlib.suppress(OSError):
                        os.write(self.ready_fd, f"{type(exc).__name__}: {exc}"[:500].encode())
            os._exit(code)
        os.close(ready_w)
        theirs.close()
        return _Spare(pid, ctl, ready_r, scratch)

    def spare_child(self, ctl: socket.socket, scratch: str) -> int:
        """Everything that does not depend on the submission, then wait for it; 0 when released unused."""
        _name(SPARE_NAME)  # what `ps` and the tests see until a submission is handed over
        os.setsid()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        joins = self.groups.open_join() if self.groups is not None else []  # before /sys leaves sight
        if self.namespaces:
            harden.enter_namespaces()
            harden.new_root(self.keep, own_pids=self.own_pids, hidden=self.hidden)
        msg, fds = recv(ctl, maxfds=4)
        if msg == {"op": "join"}:  # the slot is empty: join now, off the next submission's path
            SlotGroups.join_through(joins)
            joins = []
            msg, fds = recv(ctl, maxfds=4)
        ctl.close()
        if msg is None or len(fds) != 4:
            for fd in [*fds, *joins]:
                os.close(fd)
            return 0  # the server is done with us
        self.child(RunRequest.model_validate(msg), *fds, scratch, joins)
        return 0

    def child(
        self, req: RunRequest, source_fd: int, inbox: int, outbox: int, output: int, scratch: str,
        joins: list[int],
    ) -> None:
        """Harden, say so on `ready_fd` (an error instead if anything failed), then serve. Student
        code runs only after that descriptor is closed, so it cannot fake the answer."""
        lim = req.limits
        try:
            source = harden.read_source(source_fd, lim.source_bytes)
        except (OSError, ValueError) as exc:
            os.write(output, f"sandbox: {exc}\n".encode())
            raise
        _name(CHILD_NAME)
        uid = None
        SlotGroups.join_through(joins)  # from now on (or since `join_spare`) its CPU, memory and tasks count for it
        if self.root:
            uid = self.uid
        path = harden.make_scratch(scratch, source, uid)
        harden.arrange_fds(inbox, outbox, output, self.ready_fd)
        self.ready_fd = harden.READY_FD
        harden.capped_stdio(lim.output_bytes)
        harden.clean_env(scratch)
        os.chdir(scratch)
        harden.set_rlimits(
            as_bytes=harden.vm_size() + lim.memory_headroom_bytes,
            cpu_s=lim.cpu_s,
            nproc=self.nproc_base + lim.nproc,
            nofile=lim.nofile,
            fsize=lim.file_bytes,
        )
        harden.prctl(harden.PR_SET_NO_NEW_PRIVS, 1)
        if uid is not None:
            harden.drop_privileges(uid)
        harden.prctl(harden.PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
        if self.filter is not None:  # last: nothing above may need a refused call
            syscalls.load(self.filter, harden._libc)
        os.write(self.ready_fd, b"ok")
        os.close(self.ready_fd)
        self.ready_fd = None
        self.serve(path, harden.INBOX_FD, harden.OUTBOX_FD)

    def kill(self, pid: int, grace_s: float) -> Exit:
        """SIGKILL the child's group and every descendant (they are reparented to us), reap all."""
        end = time.monotonic() + grace_s
        while True:
            ended = _reap(pid)
            if ended is not None or time.monotonic() >= end:
                break
            time.sleep(0.001)
        killed = ended is None
        if killed:
            _signal(-pid)
            _signal(pid)
            _, status, usage = os.wait4(pid, 0)
        else:
            status, usage = ended
        cpu = usage.ru_utime + usage.ru_stime if usage is not None else None
        _signal(-pid)  # its group may outlive it
        self._kill_descendants()
        scratch = self.scratch.pop(pid, None)
        if scratch and not self.namespaces:
            shutil.rmtree(scratch, ignore_errors=True)  # rmtree never follows planted symlinks
        if os.WIFSIGNALED(status):
            return Exit(killed_by_us=killed, signal=os.WTERMSIG(status), cpu_s=cpu)
        return Exit(killed_by_us=killed, code=os.WEXITSTATUS(status), cpu_s=cpu)

    def _kill_descendants(self) -> None:
        """As child subreaper we inherit every orphan, so no children left (but the spare) means no
        descendants left. Killing one by one loses to a fork bomb (each death frees a slot for a
        new fork), so first stop the whole tree (a stopped process cannot fork), then kill it."""
        spare = {self.spare.pid} if self.spare is not None else set()
        for _ in range(100):
            if not _reap_all() or _children() <= spare:  # the spare has no children of its own
                return
            stopped: set[int] = set()
            for _ in range(1000):
                new = _descendants(os.getpid()) - stopped - spare
                if not new:
                    break
                for p in new:
                    _signal(p, signal.SIGSTOP)
                stopped |= new
            for p in stopped:
                _signal(p)
            time.sleep(0.001)


SPARE_NAME, CHILD_NAME = "grader-spare", "grader-child"


def _name(name: str) -> None:
    with contextlib.suppress(OSError):
        with open("/proc/self/comm", "w") as f:
            f.write(name)


def _children() -> set[int]:
    """This (single-threaded) process's live children, from one small /proc file; every process when
    the kernel does not offer it, which only makes the caller look harder."""
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return {int(c) for c in f.read().split()}
    except OSError:
        return _descendants(pid) | {-1}


def _reap_all() -> bool:
    """Reap every exited child; False once no child is left at all."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        return False
    return True


def _ready(fd: int, timeout_s: float = 10.0) -> str | None:
    """None once the child reports it is hardened; otherwise what went wrong."""
    data, end = b"", time.monotonic() + timeout_s
    try:
        while time.monotonic() < end:
            if not select.select([fd], [], [], end - time.monotonic())[0]:
                break
            chunk = os.read(fd, 1024)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if data == b"ok":
        return None
    return data.decode("utf-8", "replace") or "the child ended before it was hardened"


def _reap(pid: int) -> tuple[int, object] | None:
    try:
        got, status, usage = os.wait4(pid, os.WNOHANG)
    except ChildProcessError:
        return 0, None
    return (status, usage) if got else None


def _signal(target: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.kill(target, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _descendants(root: int) -> set[int]:
    """Every live process below `root`, from one pass over /proc."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()  # no /proc (not Linux): the process-group kill is all there is
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # Field 4 is the parent pid; the command name (field 2) may contain spaces, so split after ')'.
        children.setdefault(int(stat[stat.rfind(b")") + 2 :].split()[1]), []).append(int(name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _user_tasks() -> int:
    uid, n = os.getuid(), 0
    try:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat(f"/proc/{name}").st_uid == uid:
                        n += len(os.listdir(f"/proc/{name}/task"))
                except OSError:
                    continue
    except OSError:
        return 4096
    return n


def _load_runner(spec: str):
    """`module:function`, or `/path/file.py:function` (tests use a stub runner this way)."""
    target, _, func = spec.rpartition(":")
    if target.endswith(".py"):
        mod_spec = importlib.util.spec_from_file_location("_sandbox_runner", target)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    return getattr(module, func)


def _warm_up(torch) -> None:
    """Pay torch's and pydantic's first-call costs once, here, instead of in every child.
    Generic operations on random data only: the zygote must never see a reference or an answer."""
    from grader.sandbox.runner import fused_operators
    from grader.sandbox.wire import Frame, encode, read_call

    fused_operators()  # the dispatcher's list, once: each child only registers its refusals

    # The kernels a submission's calls use (linear, matmul, division, masked_fill, softmax, autograd),
    # deliberately not put together as attention: this module ships in the student's wheel.
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(2, 4, 3, dtype=dtype, requires_grad=True)
        lin = torch.nn.Linear(3, 3, bias=False).to(dtype)
        g = (lin(x) @ x.transpose(-2, -1)) / 7.0
        g = g.masked_fill(g > 1.0, -1e9)
        p = torch.softmax(g, dim=0) + torch.softmax(g, dim=1)
        torch.autograd.grad((p.sum(-1, keepdim=True) * x).sum(), [x, lin.weight])
        # Printing a tensor or a module imports torch's formatting modules on first use: here, since a
        # child cannot import any module of torch's (its files are out of sight).
        repr(g), repr(lin), f"{g.detach()[0, 0, 0]:.3f}"
    r, w_ = os.pipe()
    try:
        frame = Frame("reply", {"id": "warm", "ok": True}, {"t": torch.randn(2, 3)})
        os.write(w_, encode(frame))
        read_call(r)
    finally:
        os.close(r)
        os.close(w_)


def prepare() -> None:
    """One thread, torch's and pydantic's first-call costs paid, memory frozen: what every child
    inherits. Runs once per server, or once in the seed that servers are forked from."""
    import torch

    torch.set_num_threads(1)
    with contextlib.suppress(RuntimeError):  # already set where this process was forked from
        torch.set_num_interop_threads(1)
    _warm_up(torch)
    # Sealed here, once: each child inherits the refusals instead of installing them (~5 ms a child).
    # This process never computes attention again; the grader's own process is never sealed.
    from grader.sandbox.runner import seal

    seal()
    gc.freeze()  # the children's collections then leave the shared pages alone (no copy-on-write)


def serve(config: dict[str, Any], sock: socket.socket) -> None:
    """Serve run and kill requests on `sock` until it closes."""
    # No PDEATHSIG here: it fires when the *thread* that started us ends. EOF on the socket is our cue.
    harden.prctl(harden.PR_SET_CHILD_SUBREAPER, 1)
    Zygote(sock, config["runner"], config["hidden"], config["keep"], config["uid"], config["isolate"],
           config.get("groups"), config.get("userns", False), config.get("syscall_filter", True)).loop()


def main() -> None:
    """A server as a fresh interpreter (`Sandbox` without a seed: see `seed.py`)."""
    config = json.loads(sys.argv[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the grader answers Ctrl-C; we end when it closes the socket
    # Before torch: the BLAS pools read these once, and a thread alive at fork time is lost in the child.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    prepare()
    serve(config, socket.socket(fileno=config["fd"]))


if __name__ == "__main__":
    main()
