"""The grader's handle on the warm server: start it once, run many submissions through it.

Everything a child says is read with a deadline and checked as data; its exit status only
names the reason a reply is missing, it never earns anything.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import pwd
import select
import signal
import site
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from grader.paths import ROOT
from grader.sandbox import harden, seed
from grader.sandbox import zygote as zy
from grader.sandbox.cgroups import SlotGroups
from grader.sandbox.models import Failure, Limits, RunResult, SandboxError
from grader.sandbox.wire import REPLY_HEADER_BYTES, Bounds, Frame, WireError, read_frame, wire_bytes
from grader.vocabulary import SUBMISSION_REFUSED

DEFAULT_RUNNER = "grader.sandbox.runner:serve"
# Gradescope keeps the autograder source, the submission and results.json under this root.
GRADESCOPE_ROOT = "/autograder"
SLOT_UID_BASE = 61000
SLOT_COUNT = 64
_EXIT_GRACE_S = 0.5
_POLL_S = 0.05  # how often a waiting grader looks at the CPU time a child has used
# A failure of this kind ends the submission: a fresh child would only spend the same resource again.
RESOURCE_FAILURES = ("timeout", "memory_limit")
_LOAD_BOUNDS = Bounds(dim=1, numel=0, nbytes=REPLY_HEADER_BYTES)  # 'loaded' and 'load_error': a header alone
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)  # Linux; elsewhere the call fails and the default stays
PIPE_BYTES = 1 << 20  # /proc/sys/fs/pipe-max-size's default: what any user may ask for


def reply_bounds(call: Frame, limits: Limits) -> Bounds:
    """What a reply to `call` may hold, from the call's own tensors: no dimension larger than its
    largest input, no tensor larger than 16 times all its inputs (weights are T x T where the
    inputs are T x d, d >= 1), a header of at most `REPLY_HEADER_BYTES`, never more than
    `limits.reply_bytes` in all. Generous for any wrong but honest shape, and small enough that
    nothing the grader derives from a reply can be huge."""
    sizes = [t.numel() for t in call.tensors.values()] or [0]
    numel = max(4096, 16 * sum(sizes))
    return Bounds(dim=max(64, *sizes), numel=numel,
                  nbytes=min(limits.reply_bytes, 16 * 8 * numel + REPLY_HEADER_BYTES))

_NOT_ENFORCED = {
    "namespaces+userns": (
        "no root: isolated in a user namespace (own root, /proc, network, IPC) but no uid drop and no cgroups: "
        "memory across a submission's processes is bounded only per process, CPU time is counted for the child alone"
    ),
    "uid+rlimits": "no mount/network namespaces: hidden files are protected only by their permissions, network is open",
    "rlimits-only": (
        "no namespaces, no uid drop (not root, not Linux, or isolate=False): the submission can read "
        "every file you can (reference, rubric, tests), "
        "use the network, and see your processes; only rlimits and timeouts apply"
    ),
}


def _keep_paths() -> list[str]:
    """What the child legitimately needs under hidden directories: the interpreter and its packages."""
    import torch

    keep = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(torch.__file__).parent)}
    keep.add(str(Path(os.path.realpath(sys.executable)).parent))
    keep.update(site.getsitepackages())
    return sorted(keep)


def _default_hidden() -> list[str]:
    """The source checkout (reference, rubrics, tests, .git), Gradescope's tree and torch's files. Only a
    checkout: installed into site-packages, the package's parent is everyone's packages, and
    the package itself is hidden (its data files hold the instructor rubric); the child has
    imported all of it it needs before its new root is built."""
    hidden = [GRADESCOPE_ROOT]
    packages = [Path(p).resolve() for p in site.getsitepackages()]
    if (ROOT / "pyproject.toml").exists() and ROOT not in packages:
        hidden.append(str(ROOT))
    package = Path(__file__).resolve().parents[1]
    if any(p in package.parents for p in packages):
        hidden.append(str(package))
    # torch's own files: a child runs the torch the server imported (sealed, its attention implementations
    # refused); no other module of torch's can be imported, and none of its source or bytecode re-executed.
    import torch

    hidden.append(str(Path(torch.__file__).resolve().parent))
    return hidden


def _lock_slot() -> tuple[int, int]:
    """A uid no other live sandbox uses, held by an flock for as long as this sandbox lives."""
    for slot in range(SLOT_COUNT):
        fd = os.open(f"/tmp/grader-sandbox-slot-{slot}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return SLOT_UID_BASE + slot, fd
        except BlockingIOError:
            os.close(fd)
    raise SandboxError(f"all {SLOT_COUNT} sandbox slots are in use")


class _Forked:
    """A zygote forked by the seed: the seed's child, so it is watched rather than waited for."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def wait(self, timeout: float | None = None) -> int:
        if not seed.wait_gone(self.pid, 1e9 if timeout is None else timeout):
            raise subprocess.TimeoutExpired(f"zygote {self.pid}", timeout)
        return 0

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)


class _Child:
    def __init__(self, pid: int, inbox: int, outbox: int, oom_kills: int = 0, memory_failures: int = 0) -> None:
        self.pid, self.inbox, self.outbox = pid, inbox, outbox
        self.alive = True
        self.stream = memoryview(b"")  # every call still to send, encoded back to back
        self.sent = 0
        self.oom_kills = oom_kills  # the slot's OOM-kill count when it started
        self.memory_failures = memory_failures  # the slot's memory.failcnt when it started


def _proc_cpu_s(pid: int) -> float | None:
    """CPU seconds one process has used (user + system), from /proc; None where unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class _Budget:
    """CPU seconds for one wait (an import, a call) and for the whole submission, counted where
    the kernel counts them: the slot's cgroup (every process the submission started) or, without
    cgroups, the child's own /proc entry. A busy machine slows the wall clock, never the CPU clock,
    so a neighbour's load cannot turn into this submission's timeout. The wall clock is only a
    backstop, `wall_factor` times longer, for a child that waits without computing."""

    def __init__(self, limits: Limits, groups: SlotGroups | None) -> None:
        self.limits, self.groups = limits, groups
        self.start = time.monotonic()
        self.start_cpu = groups.cpu_s() if groups else 0.0
        self.wall_end = self.start + limits.submission_s * limits.wall_factor

    def cpu(self, child: _Child) -> float | None:
        return self.groups.cpu_s() if self.groups else _proc_cpu_s(child.pid)

    def spent(self) -> bool:
        over_cpu = self.groups is not None and self.groups.cpu_s() - self.start_cpu >= self.limits.submission_s
        return over_cpu or time.monotonic() >= self.wall_end


class Sandbox:
    """A warm server plus the policy for one submission at a time. Use as a context manager."""

    def __init__(
        self,
        limits: Limits | None = None,
        hidden_paths: Iterable[os.PathLike | str] = (),
        *,
        runner: str = DEFAULT_RUNNER,
        isolate: bool = True,
        quiet: bool = False,
        userns: bool | None = None,
        syscall_filter: bool = True,
    ) -> None:
        """`isolate=False` skips namespaces, the uid drop and the syscall filter (rlimits-only) even
        as root: the negative control that shows each isolation test has teeth; `syscall_filter=False`
        keeps the isolation but not the filter (the control for what the filter alone refuses).
        `userns`: build the isolation inside a user namespace (None: only when not root; True: even as root, which
        is how the tests exercise the path a user without root takes)."""
        self.limits = limits or Limits()
        self.hidden = [*_default_hidden(), *map(str, hidden_paths)]
        self.runner = runner
        self.quiet = quiet
        self.isolate = isolate
        self.want_filter = isolate and syscall_filter
        self.userns = (os.geteuid() != 0) if userns is None else userns
        self.isolation = "rlimits-only"
        self.syscall_filter = False  # whether children run under the seccomp filter (`syscalls.py`)
        self.zygote_pid = 0
        self.uid = 0
        self._proc: subprocess.Popen | _Forked | None = None
        self._sock: socket.socket | None = None
        self._slot_fd: int | None = None
        self._groups: SlotGroups | None = None
        self._abandoned = False

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        uid = 0
        userns = self.isolate and self.userns and sys.platform.startswith("linux")
        if os.geteuid() == 0 and self.isolate and not userns:
            uid, self._slot_fd = _lock_slot()
        self.uid = uid  # the slot uid children run as (0: no uid drop)
        lim = self.limits
        self._groups = None
        if self.isolate and uid:
            self._groups = SlotGroups.create(f"grader-sandbox-{uid}", memory_bytes=lim.memory_headroom_bytes,
                                             tasks=lim.nproc, cpus=lim.cpus)
        mine, theirs = socket.socketpair()
        config = {
            "fd": theirs.fileno(),
            "runner": self.runner,
            "hidden": self.hidden,
            "keep": _keep_paths(),
            "uid": uid,
            "isolate": self.isolate,
            "syscall_filter": self.want_filter,
            "groups": self._groups.dirs if self._groups else None,
            "userns": userns,
        }
        code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from grader.sandbox.zygote import main; main()"
        self._proc = None
        # Forked from the seed when there is one (one torch import per process); a user namespace
        # must be entered by a single-threaded new process, so that case keeps the fresh interpreter.
        forked = None if userns else seed.fork_zygote(config, theirs.fileno())
        if forked is not None:
            self._proc = _Forked(forked)
        if self._proc is None and userns:
            # Entered between fork and exec, while the new process is single-threaded (unshare needs that).
            uid_gid = (os.getuid(), os.getgid())
            try:
                self._proc = self._popen(code, config, theirs, lambda: harden.enter_user_namespace(*uid_gid))
            except (subprocess.SubprocessError, OSError):
                config["userns"] = False  # no user namespaces here: rlimits only, and the warning says so
        if self._proc is None:
            try:
                self._proc = self._popen(code, config, theirs, None)
            except OSError as err:  # e.g. an interpreter under /root, run by another user
                mine.close()
                theirs.close()
                self.close()
                raise SandboxError(_cannot_start(err)) from None
        theirs.close()
        self._sock = mine
        self._abandoned = False
        mine.settimeout(120)
        try:
            hello = self._recv()
        except BaseException:
            self._abandon()  # a half-started server would answer the next request with its hello
            raise
        mine.settimeout(None)
        self.isolation = hello["isolation"]
        self.syscall_filter = bool(hello.get("syscall_filter"))
        self.zygote_pid = hello["pid"]
        if self.isolation in _NOT_ENFORCED and not self.quiet:
            print(f"grader: sandbox is {self.isolation}: {_NOT_ENFORCED[self.isolation]}", file=sys.stderr)
        if self.want_filter and not self.syscall_filter and not self.quiet and sys.platform.startswith("linux"):
            print("grader: no syscall filter (libseccomp.so.2 not found): a submission can start programs "
                  "and use key rings; install libseccomp2", file=sys.stderr)

    @staticmethod
    def _popen(code: str, config: dict, theirs: socket.socket, preexec) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-I", "-c", code, json.dumps(config)],
            pass_fds=[theirs.fileno()],
            # A fresh interpreter with an empty environment: the zygote, and so every child, holds no secret.
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            stdin=subprocess.DEVNULL,
            preexec_fn=preexec,
            # Out of our process group: Jupyter interrupts a kernel by signalling its whole group.
            start_new_session=True,
        )

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._groups is not None:
            self._groups.remove()  # the server is gone, and every child with it
            self._groups = None
        if self._slot_fd is not None:
            os.close(self._slot_fd)
            self._slot_fd = None

    def _server_died(self) -> bool:
        # Its socket closes a moment before the process is reapable: wait for that moment.
        try:
            self._proc.wait(timeout=2.0)
        except (subprocess.TimeoutExpired, AttributeError):
            return False
        return True

    def _send(self, payload: dict, fds: list[int] = ()) -> None:
        try:
            zy.send(self._sock, payload, fds)
        except OSError as exc:
            raise SandboxError(f"lost the sandbox server: {exc}") from None

    def _recv(self) -> dict:
        try:
            msg, _ = zy.recv(self._sock)
        except (OSError, ValueError) as exc:
            raise SandboxError(f"lost the sandbox server: {exc}") from None
        if msg is None:
            raise SandboxError("the sandbox server exited")
        return msg

    # -- one submission --------------------------------------------------------------------
    def run(
        self, source_path: os.PathLike | str, calls: Sequence[Frame], hidden_paths: Iterable = (),
        limits: Limits | None = None,
    ) -> RunResult:
        """`limits` (a rubric's) replace the sandbox's own for this run only; one run at a time."""
        if limits is not None and limits != self.limits:
            own, self.limits = self.limits, limits
            try:
                return self.run(source_path, calls, hidden_paths)
            finally:
                self.limits = own
        if self._sock is None and self._abandoned:
            self.start()
        if self._sock is None:
            raise SandboxError("the sandbox is not started; use it as a context manager")
        if self._proc is not None and _exited(self._proc):
            # It died between submissions (killed from outside, a session ending): not this file's doing.
            self.close()
            self.start()
        try:
            return self._run_submission(source_path, calls, hidden_paths)
        except BaseException:
            # Interrupted (Ctrl-C, a notebook's interrupt) or broken halfway through a conversation:
            # the server may still owe us frames, so it is replaced rather than read out of step.
            self._abandon()
            raise

    def _abandon(self) -> None:
        """Kill the server now; the next `run` starts a fresh one (not here: an interrupt must not wait)."""
        if self._proc is not None:
            self._proc.kill()
        self.close()
        self._abandoned = True

    def _run_submission(
        self, source_path: os.PathLike | str, calls: Sequence[Frame], hidden_paths: Iterable
    ) -> RunResult:
        lim = self.limits
        t0 = time.monotonic()
        hidden = [str(p) for p in hidden_paths]
        result = RunResult(load=None, isolation=self.isolation)
        for call in calls:
            if not isinstance(call.meta.get("id"), str):
                raise ValueError("every call frame needs a string meta['id']")
        try:
            # O_NOFOLLOW: a submission planted as a symlink to the reference must not be graded as its copy.
            source = os.open(source_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            size = os.fstat(source)
            if not stat.S_ISREG(size.st_mode) or size.st_size > lim.source_bytes:
                os.close(source)
                why = (
                    "not a regular file"
                    if not stat.S_ISREG(size.st_mode)
                    else f"over {lim.source_bytes} bytes"
                )
                raise OSError(errno.EINVAL, why)
        except OSError as exc:
            why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
            result.load = Frame(
                "load_error",
                {
                    "error_type": SUBMISSION_REFUSED,
                    "message": f"cannot open the submission: {why}",
                    "lineno": None,
                },
            )
            _fail_all(result, list(calls), Failure("process_exit", "the submission was not run"), "not run")
            result.wall_s = time.monotonic() - t0
            return result
        output = tempfile.TemporaryFile()
        fcntl.fcntl(output.fileno(), fcntl.F_SETFL, os.O_APPEND)
        pending = list(calls)
        try:
            try:
                self._run(source, output.fileno(), hidden, pending, _Budget(lim, self._groups), result)
            except SandboxError:
                if not self._server_died():
                    raise  # a live server that misbehaves is our bug, not the submission's
                # Without isolation a submission can kill the server: that is its verdict,
                # and the next submission gets a fresh server.
                failure = Failure("process_exit", "the sandbox server died while running this submission")
                result.failure = result.failure or failure
                done = result.replies.keys() | result.failures.keys()
                _fail_all(result, [c for c in pending if c.meta["id"] not in done], failure, "not run")
                self.close()
                self.start()
            result.output = self._read_output(output.fileno())
        finally:
            os.close(source)
            output.close()
        result.wall_s = time.monotonic() - t0
        return result

    def _run(
        self,
        source: int,
        output: int,
        hidden: list[str],
        pending: list[Frame],
        budget: _Budget,
        result: RunResult,
    ) -> None:
        lim = self.limits
        restarts = 0
        first = True
        while True:
            child = self._spawn(source, output, hidden)
            try:
                load, failure = self._answer(child, budget, lim.load_s, "it was imported", _LOAD_BOUNDS)
                if failure is None and load.kind not in ("loaded", "load_error"):
                    failure = Failure("protocol_error", f"expected a 'loaded' frame, got {load.kind!r}")
                if failure is not None:
                    failure.message = (
                        "while importing: " if first else "while re-importing: "
                    ) + failure.message
                    if first:
                        result.failure = failure
                    _fail_all(result, pending, failure, "not run: the submission could not be loaded")
                    return
                result.reply_bytes += load.wire_bytes  # every frame counts, each re-import's too
                if first:
                    result.load = load
                    first = False
                if load.kind == "load_error":
                    if pending:  # it imported before: a second import failing is its own doing
                        _fail_all(
                            result,
                            pending,
                            Failure("process_exit", "the submission failed to re-import"),
                            "not run",
                        )
                    return
                child.stream = memoryview(b"".join(wire_bytes(c) for c in pending))
                while pending:
                    call = pending[0]
                    call_id = call.meta["id"]
                    # The clock starts when the previous answer is in: that is when the child starts this one.
                    reply, failure = self._call(child, call, budget)
                    pending.pop(0)
                    if failure is None:
                        result.reply_bytes += reply.wire_bytes
                        if result.reply_bytes <= lim.replies_bytes:
                            result.replies[call_id] = reply
                            continue
                        failure = Failure(
                            "protocol_error", f"its replies passed the {lim.replies_bytes}-byte cap per submission"
                        )
                        result.failures[call_id] = failure
                        _fail_all(result, pending, failure, "not run: the submission was stopped")
                        return
                    result.failures[call_id] = failure
                    if failure.kind in RESOURCE_FAILURES:
                        # Stopped at its first resource failure: named once, the same way every run.
                        _fail_all(result, pending, failure, "not run: the submission was stopped")
                        return
                    if restarts >= lim.max_restarts or budget.spent():
                        why = "not run: gave up after the child failed " + (
                            f"{restarts + 1} times" if not budget.spent() else "and the submission's time was spent"
                        )
                        _fail_all(result, pending, failure, why)
                        return
                    restarts += 1
                    break  # a fresh child for the remaining calls
                else:
                    return
            finally:
                self._finish(child)

    def _spawn(self, source: int, output: int, hidden: list[str]) -> _Child:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        for fd in (in_w, out_w):
            # Room for every call (and its replies) at once: with the default 64 KiB the child waited
            # for the next call each time we stopped to read a reply, a round trip per call.
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
        try:
            self._send(
                zy.RunRequest(limits=self.limits, hidden=hidden).model_dump(),
                [source, in_r, out_w, output],
            )
            reply = self._recv()
        except BaseException:
            for fd in (in_w, out_r):
                os.close(fd)
            raise
        finally:
            os.close(in_r)
            os.close(out_w)
        os.set_blocking(in_w, False)  # our end only: a child that stops reading must not block us
        os.set_blocking(out_r, False)  # ours too: a reply is read as it is there, waited for only when not
        groups = self._groups
        child = _Child(reply["pid"], in_w, out_r, groups.oom_kills() if groups else 0,
                       groups.memory_failures() if groups else 0)
        if reply.get("error"):
            # Our failure, not the submission's: never let it read as a student's process_exit.
            self._finish(child)
            raise SandboxError(f"the sandbox could not prepare a child: {reply['error']}")
        return child

    def _call(self, child: _Child, call: Frame, budget: _Budget) -> tuple[Frame | None, Failure | None]:
        reply, failure = self._answer(child, budget, self.limits.call_s, "it ran", reply_bounds(call, self.limits))
        if failure is None and (reply.kind != "reply" or reply.meta.get("id") != call.meta["id"]):
            failure = self._kill(child, "protocol_error", f"expected the reply to call {call.meta['id']!r}")
        return reply, failure

    def _answer(
        self, child: _Child, budget: _Budget, cpu_s: float, what: str, bounds: Bounds
    ) -> tuple[Frame | None, Failure | None]:
        """Wait for the child's next frame, writing later calls ahead meanwhile (the child still
        answers one call at a time, but never waits for us between two of them). It may spend
        `cpu_s` seconds of CPU time; the wall clock only backs that up."""
        start_cpu = budget.cpu(child)
        measured = start_cpu is not None
        start = time.monotonic()
        wall_s = cpu_s * self.limits.wall_factor if measured else cpu_s
        end = min(start + wall_s, budget.wall_end)
        # One message whichever clock ran out first, so the same file gets the same report on any machine.
        stopped = (f"stopped at its limit of {cpu_s:g} s of CPU time"
                   + (f" ({wall_s:g} s of wall clock)" if measured else " (wall clock)") + f" while {what}")
        while True:
            now = time.monotonic()
            if now >= end:
                if end < start + wall_s:
                    return None, self._kill(child, "timeout", self._spent_message())
                return None, self._kill(child, "timeout", stopped)
            if measured:
                used = budget.cpu(child)
                if used is not None and used - start_cpu >= cpu_s:
                    return None, self._kill(child, "timeout", stopped)
                if budget.spent():
                    return None, self._kill(child, "timeout", self._spent_message())
            # The kernel's OOM killer ended one of its processes: the cap is reached, whatever the
            # others now wait for (a parent blocked on a killed helper would otherwise sit out the backstop).
            if self._groups is not None and self._groups.oom_kills() > child.oom_kills:
                return None, self._kill(child, "memory_limit", "the kernel ended one of its processes at the memory cap")
            writing = [child.inbox] if child.sent < len(child.stream) else []
            wait = min(end - now, _POLL_S) if measured else end - now
            readable, writable, _ = select.select([child.outbox], writing, [], wait)
            if writable:
                try:
                    child.sent += os.write(child.inbox, child.stream[child.sent : child.sent + (1 << 16)])
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    child.sent = len(child.stream)  # it is gone: the reply pipe will say how
            if readable:
                break
        try:
            # The frame has begun: the rest of it must follow before the wall-clock backstop.
            return read_frame(child.outbox, end, bounds=bounds, nonblocking=True), None
        except TimeoutError:
            return None, self._kill(child, "timeout", f"a partial frame while {what}, never finished (wall clock)")
        except EOFError:
            return None, self._kill(child, "process_exit", "the process went away", grace_s=_EXIT_GRACE_S)
        except WireError as exc:
            return None, self._kill(child, "protocol_error", f"malformed result frame: {exc}")
        except Exception as exc:  # noqa: BLE001 - whatever the bytes were, it is a verdict, not our crash
            return None, self._kill(
                child, "protocol_error", f"unreadable result frame ({type(exc).__name__})"
            )

    def _spent_message(self) -> str:
        lim = self.limits
        return (f"the submission's time ran out: {lim.submission_s:g} s of CPU time"
                f" ({lim.submission_s * lim.wall_factor:g} s of wall clock)")

    def _kill(self, child: _Child, kind: str, message: str, grace_s: float = 0.0) -> Failure:
        """Kill the child; let the way it ended refine the reason (CPU limit, kernel kill, exit code)."""
        ended = self._reap(child, grace_s)
        groups = self._groups
        if groups is not None and (groups.oom_kills() > child.oom_kills
                                   or groups.memory_failures() > child.memory_failures):
            # It reached its memory cap: that names the stop, however it showed. At the cap the kernel
            # reclaims (burning CPU time) before it kills, so which clock ran out first was chance.
            return Failure("memory_limit", f"reached the sandbox's memory limit "
                           f"({_gib(self.limits.memory_headroom_bytes)} for all its processes together)")
        if ended is None or ended.killed_by_us:
            return Failure(kind, message)
        if ended.signal == signal.SIGXCPU or (ended.cpu_s or 0) >= self.limits.cpu_s:
            return Failure("timeout", f"CPU time limit of {self.limits.cpu_s} s reached")
        if ended.signal == signal.SIGKILL:
            return Failure("memory_limit", "killed by the kernel (SIGKILL), most likely for memory")
        if ended.signal is not None:
            return Failure("process_exit", f"killed by {signal.Signals(ended.signal).name}")
        return Failure("process_exit", f"the process exited with status {ended.code}")

    def _reap(self, child: _Child, grace_s: float, wait: bool = True) -> zy.Exit | None:
        if not child.alive:
            return None
        child.alive = False
        self._send(zy.KillRequest(pid=child.pid, grace_s=grace_s, wait=wait).model_dump())
        return zy.Exit.model_validate(self._recv())

    def _finish(self, child: _Child) -> None:
        # No `end` frame: all its replies are in, so kill it now; the zygote reaps it (and
        # anything it started) before the next fork, while we get on with the checks.
        try:
            self._reap(child, 0.0, wait=False)
        finally:
            os.close(child.inbox)
            os.close(child.outbox)

    def _read_output(self, fd: int) -> str:
        cap = self.limits.output_bytes
        data = os.pread(fd, cap + 1, 0)
        text = data[:cap].decode("utf-8", errors="replace")
        if len(data) > cap and not text.endswith("[output truncated]\n"):
            text += "\n[output truncated]\n"
        return text


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.3g} GiB"


def _cannot_start(err: OSError) -> str:
    """One line: which interpreter could not be started, as whom, and what to do about it."""
    try:
        user = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # a uid with no name (a container's)
        user = f"uid {os.getuid()}"
    return (f"its Python interpreter {sys.executable} could not be started as user {user} "
            f"({err.strerror or err}); run the grader from a Python this user may execute, e.g. a "
            f"virtual environment of its own (python3 -m venv ~/grader-venv, then install the grader there)")


def _exited(proc: subprocess.Popen | _Forked) -> bool:
    try:
        proc.wait(timeout=0)
    except subprocess.TimeoutExpired:
        return False
    return True


def _fail_all(result: RunResult, pending: list[Frame], failure: Failure, why: str) -> None:
    for call in pending:
        result.failures[call.meta["id"]] = Failure(failure.kind, f"{why} ({failure.message})", skipped=True)
    pending.clear()
