"""The syscall filter: a child starts no program, makes no key and no IPC that outlives it, mounts
nothing and enters no namespace. Each refusal has its control: the same file in a sandbox with the
same isolation but no filter (`syscall_filter=False`), or without any isolation."""

from __future__ import annotations

import ctypes
import os
import sys

import pytest
import torch
from sandbox_kit import (
    TEST_LIMITS,
    UNLOCKED,
    assert_healthy,
    attention_calls,
    baseline,
    gallery,
    left_behind,
    load_reference,
    needs_namespaces,
)

from grader.sandbox import Sandbox, syscalls

DOORS = ("execv", "posix_spawn", "system", "popen", "ctypes_execve", "ctypes_execveat")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux's")
# The gallery's probes make raw system calls by their x86_64 numbers.
x86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probes use x86_64 call numbers")
# A fresh interpreter imports torch: seconds of CPU time, far over the tests' one-second calls.
SLOW = TEST_LIMITS.model_copy(update={"call_s": 60.0, "load_s": 60.0, "submission_s": 120.0})


@pytest.fixture(scope="module")
def sandbox(sandbox_for):
    """The unlocked runner (ctypes in the child, as native code past the lock would have), and what its slot
    uids owned before this module's runs: a test judges only what they left."""
    return baseline(sandbox_for(TEST_LIMITS, runner=UNLOCKED))


@pytest.fixture(scope="module")
def unfiltered(sandbox_for):
    """The same isolation without the filter: the control for what the filter alone refuses."""
    return baseline(sandbox_for(SLOW, runner=UNLOCKED, syscall_filter=False))


@linux_only
def test_the_filter_is_built_and_reported(sandbox):
    bpf = syscalls.program()
    assert bpf and len(bpf) % 8 == 0  # whole BPF instructions
    assert sandbox.syscall_filter is True
    with Sandbox(runner=UNLOCKED, limits=TEST_LIMITS, quiet=True, isolate=False) as open_sb:
        assert open_sb.syscall_filter is False


@linux_only
@x86_64
def test_no_door_starts_a_program(sandbox, unfiltered):
    res = sandbox.run(gallery("exec_every_door"), attention_calls(1))
    assert "EXECUTED" not in res.output, res.output
    for door in ("execv", "posix_spawn", "popen", "ctypes_execve", "ctypes_execveat"):
        assert f"REFUSED {door} PermissionError" in res.output, res.output
    assert res.replies["c0"].meta["ok"] is True  # graded on what it returns, like any file
    control = unfiltered.run(gallery("exec_every_door"), attention_calls(1))
    for door in DOORS:
        assert f"EXECUTED {door}" in control.output, control.output
    assert_healthy(sandbox)


@linux_only
def test_a_fresh_interpreter_cannot_compute_fused_attention(sandbox, unfiltered):
    calls = attention_calls(1)
    res = sandbox.run(gallery("exec_fresh_python"), calls)
    reply = res.replies["c0"]
    assert reply.meta["ok"] is False and reply.meta["error_type"] == "PermissionError", reply.meta
    # The control: without the filter the fresh interpreter starts. Under namespaces it then finds no torch
    # (torch's files are out of the child's sight, a second wall); where it can see torch, it answers right.
    control = unfiltered.run(gallery("exec_fresh_python"), calls)
    got = control.replies["c0"].meta
    if not got["ok"]:
        assert got["error_type"] == "CalledProcessError", got  # it ran, and failed to import torch
    # And with neither (no filter, torch's files in sight): the attack itself, fused attention's values.
    with Sandbox(runner=UNLOCKED, limits=SLOW, quiet=True, isolate=False) as open_sb:
        attack = open_sb.run(gallery("exec_fresh_python"), calls)
    assert attack.replies["c0"].meta["ok"] is True, (attack.failures, attack.output)
    out, _ = load_reference().causal_attention(*(calls[0].tensors[x] for x in "qkv"))
    torch.testing.assert_close(attack.replies["c0"].tensors["out"], out)
    assert_healthy(sandbox)


LASTING = ("SHM", "MSG", "SEM", "MQ", "KEY")


@needs_namespaces
@x86_64
def test_no_key_and_no_lasting_ipc_can_be_made(sandbox):
    res = sandbox.run(gallery("leave_state"), attention_calls(1))
    assert res.replies["c0"].meta["ok"] is True
    for kind in LASTING:
        assert f"{kind} -1" in res.output, res.output
    found = sandbox.run(gallery("read_state"), attention_calls(1))
    assert "FOUND" not in found.output, found.output
    assert left_behind(sandbox.uid) == []


def _forget_key(name: bytes) -> None:
    """The control's key, in root's own key ring: invalidated, so nothing of the test outlives it."""
    libc = ctypes.CDLL(None, use_errno=True)
    key = libc.syscall(249, b"user", name, None, 0)  # request_key
    if key >= 0:
        libc.syscall(250, 21, key)  # keyctl(KEYCTL_INVALIDATE, key)


@linux_only
@x86_64
@pytest.mark.skipif(os.geteuid() != 0, reason="the control writes root's key ring")
def test_the_key_ring_channel_is_real_without_the_filter():
    """Without the filter (and without isolation, so the key lands in root's ring, which the test
    can clean, not in a slot uid's), one child's key is the next child's answer."""
    name = b"answers-from-a-classmate"
    _forget_key(name)
    try:
        with Sandbox(runner=UNLOCKED, limits=TEST_LIMITS, quiet=True, isolate=False) as open_sb:
            left = open_sb.run(gallery("leave_state"), attention_calls(1))
            assert "KEY -1" not in left.output, left.output
            found = open_sb.run(gallery("read_state"), attention_calls(1))
        assert "FOUND key" in found.output, found.output
    finally:
        _forget_key(name)
        for path in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
            if os.path.exists(p := os.path.join(path, name.decode())):
                os.unlink(p)
        libc = ctypes.CDLL(None, use_errno=True)
        for get, rm in ((libc.shmget, libc.shmctl), (libc.msgget, libc.msgctl), (libc.semget, libc.semctl)):
            ident = get(0x5A4D1234, 0, 0)
            if ident >= 0:
                rm(ident, 0, None)  # IPC_RMID
        libc.mq_unlink(b"/" + name)


IPC_PROBE = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
KEY, NAME = 0x5A4D1234, b"/answers-from-a-classmate"
print("SHM", libc.shmget(KEY, 1 << 20, 0o1666), "MSG", libc.msgget(KEY, 0o1666), "SEM", libc.semget(KEY, 1, 0o1666),
      "MQ", libc.mq_open(NAME, os.O_CREAT | os.O_RDWR, 0o666, None))
def causal_attention(q, k, v):
    return v, v
"""


@needs_namespaces
def test_without_the_filter_ipc_still_dies_with_the_namespace(unfiltered, tmp_path):
    probe = tmp_path / "ipc.py"
    probe.write_text(IPC_PROBE)
    made = unfiltered.run(probe, attention_calls(1))
    assert "-1" not in made.output, made.output  # the control: here they could be made
    found = unfiltered.run(gallery("read_state"), attention_calls(1))
    assert not [line for line in found.output.splitlines() if line.startswith("FOUND")], found.output
    assert left_behind(unfiltered.uid) == []


MOUNTS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def clone_newuser():
    ret = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER | SIGCHLD), like a fork
    if ret == 0:
        os._exit(0)
    return ret
for what, call in (("unshare", lambda: libc.unshare(0x10000000)),
                   ("clone_newuser", clone_newuser),
                   ("mount", lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
                   ("ptrace_traceme", lambda: libc.ptrace(0, 0, 0, 0)),
                   ("bpf", lambda: libc.syscall(321, 0, 0, 0)),
                   ("userfaultfd", lambda: libc.syscall(323, 0)),
                   ("perf_event_open", lambda: libc.syscall(298, 0, 0, -1, -1, 0)),
                   ("io_uring_setup", lambda: libc.syscall(425, 1, 0))):
    ctypes.set_errno(0)
    ret = call()
    print("CALL", what, ret, ctypes.get_errno() if ret < 0 else 0)
def causal_attention(q, k, v):
    return v, v
"""


def _calls(sb: Sandbox, probe) -> dict[str, tuple[int, int]]:
    res = sb.run(probe, attention_calls(1))
    lines = [line.split() for line in res.output.splitlines() if line.startswith("CALL")]
    assert len(lines) == 8, res.output
    return {what: (int(ret), int(err)) for _, what, ret, err in lines}


@needs_namespaces
@x86_64
def test_namespaces_mounts_and_kernel_machinery_are_refused(sandbox, unfiltered, tmp_path):
    probe = tmp_path / "calls.py"
    probe.write_text(MOUNTS)
    assert set(_calls(sandbox, probe).values()) == {(-1, 1)}  # EPERM, each one
    # The control: without the filter the kernel answers otherwise for some (ptrace(TRACEME) succeeds,
    # io_uring and perf read their NULL arguments and say EFAULT); the rest it refuses itself.
    control = _calls(unfiltered, probe)
    assert control["ptrace_traceme"] == (0, 0) and control["io_uring_setup"][1] != 1, control


@needs_namespaces
@x86_64
def test_no_key_ring_of_any_kind_is_reachable(sandbox):
    res = sandbox.run(gallery("key_rings_every_kind"), attention_calls(1))
    lines = [line.split() for line in res.output.splitlines() if line.startswith("KEYRING")]
    assert len(lines) == 6 and all(ret == "-1" and err == "1" for *_, ret, err in lines), res.output
    assert left_behind(sandbox.uid) == []
