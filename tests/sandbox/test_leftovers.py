"""Nothing outlives a child: no file, no SysV IPC object, no process; no classmate reads what
another left; no neighbour's load or memory becomes another submission's verdict."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from sandbox_kit import (
    REFERENCE,
    TEST_LIMITS,
    UNLOCKED,
    assert_healthy,
    attention_calls,
    baseline,
    gallery,
    left_behind,
    needs_namespaces,
    owned_by,
)

from grader.sandbox import Sandbox

MiB = 1 << 20


@pytest.fixture(scope="module")
def sandbox(sandbox_for):
    """The unlocked runner (ctypes in the child, as native code past the lock would have), and what its slot
    uids owned before this module's runs: a test judges only what they left."""
    return baseline(sandbox_for(TEST_LIMITS, runner=UNLOCKED))


def test_the_leftover_scan_has_teeth(tmp_path):
    planted = tmp_path / "planted"
    planted.write_text("x")
    os.chown(planted, 61999, 61999)
    assert f"file {planted}" in owned_by(61999)


@needs_namespaces
def test_nothing_a_submission_leaves_reaches_the_next_or_the_host(sandbox):
    res = sandbox.run(gallery("leave_state"), attention_calls(1))
    assert "LEFT" in res.output and res.replies["c0"].meta["ok"] is True
    # It could write its scratch areas (its own); keys and lasting IPC the filter refused (test_syscalls.py
    # shows that IPC made without the filter dies with the namespace too).
    assert "/var/tmp" in res.output and "SHM -1" in res.output
    assert "KEY -1" in res.output or os.uname().machine != "x86_64"  # add_key by its x86_64 number
    found = sandbox.run(gallery("read_state"), attention_calls(1))
    assert "FOUND" not in found.output, found.output
    assert_healthy(sandbox)
    assert left_behind(sandbox.uid) == []


@needs_namespaces
def test_a_child_sees_only_its_own_processes_and_a_read_only_host(sandbox, tmp_path):
    probe = tmp_path / "look.py"
    probe.write_text(
        "import os\n"
        "print('PROCS', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "for d in ('/', '/usr', '/etc', '/tmp', '/var/tmp', '/dev/shm', '/run/lock'):\n"
        "    try:\n"
        "        open(os.path.join(d, 'w'), 'w').close(); print('WROTE', d)\n"
        "    except OSError as e:\n"
        "        print('NO', d, e.errno)\n"
        "def causal_attention(q, k, v):\n    return v, v\n"
    )
    res = sandbox.run(probe, attention_calls(1))
    assert "PROCS [1]" in res.output, res.output
    for d in ("/", "/usr", "/etc", "/tmp"):
        assert f"NO {d} " in res.output, res.output
    for d in ("/var/tmp", "/dev/shm", "/run/lock"):
        assert f"WROTE {d}" in res.output, res.output
    assert left_behind(sandbox.uid) == []


@needs_namespaces
def test_memory_across_processes_is_named_memory_limit_every_time():
    # call_s above the tests' 1 s: filling pages costs CPU, and on a loaded machine the CPU budget was
    # reached first (named timeout) in one fresh-clone run; this test is about the memory budget alone.
    # The wall-clock backstop is 5,000 s: the parent waits on helpers the kernel spared, so each call must
    # end when the OOM killer strikes, not at the backstop (before that fix, the join below ran out).
    limits = TEST_LIMITS.model_copy(update={"memory_headroom_bytes": 512 * MiB, "call_s": 5.0,
                                            "submission_s": 60.0, "wall_factor": 1000.0})
    with Sandbox(limits=limits, quiet=True) as sb:
        baseline(sb)
        if sb._groups is None:
            pytest.skip("no memory cgroup here")
        runs: list = []
        runner = threading.Thread(target=lambda: runs.extend(sb.run(gallery("memory_fork_bomb"), attention_calls(3))
                                                             for _ in range(2)), daemon=True)
        runner.start()
        runner.join(300)
        assert len(runs) == 2, "a call sat out the wall-clock backstop after the OOM kill"
        first, second = runs
        assert_healthy(sb)
        assert left_behind(sb.uid) == []
    for res in (first, second):
        assert {f.kind for f in res.failures.values()} == {"memory_limit"}, res.failures
        # Stopped at the first failure: one child paid for it, the other calls never ran.
        assert sum("not run" in f.message for f in res.failures.values()) == 2
    assert [f.message for f in first.failures.values()] == [f.message for f in second.failures.values()]


SLOW_HONEST = (
    "import math\nimport torch\n\n"
    "def causal_attention(q, k, v):\n"
    "    sum(range(3_000_000))  # honest, but slow: about a tenth of a second of CPU per call\n"
    "    T = q.shape[-2]\n"
    "    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])\n"
    "    w = torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float('-inf')), -1)\n"
    "    return w @ v, w\n"
)


@needs_namespaces
def test_a_neighbours_busy_loops_never_become_an_honest_timeout(tmp_path):
    honest = tmp_path / "slow_honest.py"
    honest.write_text(SLOW_HONEST)
    hog_result = {}
    with Sandbox(limits=TEST_LIMITS, quiet=True) as hog, Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        baseline(hog), baseline(sb)
        thread = threading.Thread(target=lambda: hog_result.update(res=hog.run(gallery("cpu_hog"), attention_calls(8))))
        thread.start()
        res = sb.run(honest, attention_calls(8))
        thread.join()
        assert left_behind(hog.uid) == [] and left_behind(sb.uid) == []
    assert res.failures == {}, res.failures
    assert all(r.meta["ok"] for r in res.replies.values())
    assert Path(REFERENCE).exists()
