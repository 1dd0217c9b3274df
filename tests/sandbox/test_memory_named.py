"""The limit that was hit is the one named: a submission that reached its memory cap is
`memory_limit` whichever clock ran out while the kernel reclaimed at the cap."""

from __future__ import annotations

import pytest
from sandbox_kit import (
    TEST_LIMITS,
    assert_healthy,
    attention_calls,
    baseline,
    gallery,
    left_behind,
    needs_namespaces,
)

from grader.sandbox import Sandbox
from grader.sandbox import client as sandbox_client
from grader.sandbox import zygote as zy

MiB = 1 << 20


class _Groups:
    """A slot's counters as the kernel would show them: `failures` charges met the cap."""

    def __init__(self, failures: int, kills: int = 0) -> None:
        self.failures, self.kills = failures, kills

    def memory_failures(self) -> int:
        return self.failures

    def oom_kills(self) -> int:
        return self.kills


def _stop(groups: _Groups, kind: str) -> sandbox_client.Failure:
    sb = Sandbox(limits=TEST_LIMITS, quiet=True)
    sb._groups = groups
    sb._reap = lambda child, grace_s, wait=True: zy.Exit(killed_by_us=True, signal=9)
    return sb._kill(sandbox_client._Child(1, -1, -1, oom_kills=0, memory_failures=0), kind, "stopped")


def test_a_stop_at_the_memory_cap_is_memory_limit_whichever_clock_ran_out():
    # The CPU clock ran out while the kernel was reclaiming at the cap (no OOM kill yet).
    failure = _stop(_Groups(failures=3), "timeout")
    assert failure.kind == "memory_limit" and "memory limit" in failure.message
    assert _stop(_Groups(failures=0, kills=1), "timeout").kind == "memory_limit"
    # The control: below the cap, the clock that ran out names it.
    assert _stop(_Groups(failures=0), "timeout").kind == "timeout"


@needs_namespaces
def test_steps_past_the_cap_are_memory_limit_every_run(tmp_path):
    """alloc_12gib_steps scaled to a 512 MiB cap (128 MiB steps): the same name and message each run."""
    source = tmp_path / "steps.py"
    source.write_text(gallery("alloc_12gib_steps").read_text().replace("1 << 28", "1 << 25"))
    limits = TEST_LIMITS.model_copy(update={"memory_headroom_bytes": 512 * MiB, "call_s": 3.0})
    with Sandbox(limits=limits, quiet=True) as sb:
        baseline(sb)
        if sb._groups is None:
            pytest.skip("no memory cgroup here")
        runs = [sb.run(source, attention_calls(2)) for _ in range(3)]
        assert_healthy(sb)
        assert left_behind(sb.uid) == []
    for res in runs:
        assert {f.kind for f in res.failures.values()} == {"memory_limit"}, res.failures
    assert len({tuple(f.message for f in res.failures.values()) for res in runs}) == 1

