"""The next submission's spare joins the slot's groups while the grader judges, once the slot is empty: a
migration into a memory cgroup waits for an RCU grace period (about 10 ms here), which was on every
submission's path between its hand-over and its import."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sandbox_kit import REFERENCE, attention_calls

from grader.sandbox import Sandbox
from grader.sandbox.zygote import SPARE_NAME


def _members(sb: Sandbox) -> dict[int, str]:
    procs = Path(sb._groups.dirs["memory"], "cgroup.procs").read_text().split()
    names = {}
    for pid in map(int, procs):
        try:
            names[pid] = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
    return names


def test_the_spare_is_in_the_slot_groups_alone_before_its_submission_arrives():
    with Sandbox() as sb:
        if sb._groups is None:
            pytest.skip("no cgroups here: nothing to join")
        calls = attention_calls(3)
        for _ in range(2):
            result = sb.run(REFERENCE, calls)
            assert len(result.replies) == len(calls)
            end = time.monotonic() + 5
            while list((members := _members(sb)).values()) != [SPARE_NAME] and time.monotonic() < end:
                time.sleep(0.01)  # the finished child is reaped, and the spare joins, while the grader judges
            assert list(members.values()) == [SPARE_NAME], members
