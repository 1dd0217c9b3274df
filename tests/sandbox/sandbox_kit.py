"""Fixtures and helpers for the sandbox tests, imported by the sandbox test modules beside it."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest
import torch

from grader.paths import ROOT as REPO_ROOT
from grader.sandbox import Frame, Limits, Sandbox
from grader.sandbox.leftovers import owned_by
from grader.sandbox.zygote import SPARE_NAME

GALLERY = REPO_ROOT / "tests" / "gallery"
REFERENCE = REPO_ROOT / "reference" / "attention.py"
TEST_LIMITS = Limits(call_s=1.0, load_s=2.0, submission_s=8.0)

needs_namespaces = pytest.mark.skipif(
    not (os.geteuid() == 0 and os.path.exists("/proc/self/ns/mnt")),
    reason="needs root on Linux for mount/network namespaces and the uid drop",
)


def attention_calls(n: int = 2, seed: int = 0) -> list[Frame]:
    g = torch.Generator().manual_seed(seed)
    return [
        Frame(
            "call",
            {"id": f"c{i}", "target": "attention"},
            {x: torch.randn(2, 5, 3, generator=g) for x in "qkv"},
        )
        for i in range(n)
    ]


def gallery(name: str) -> Path:
    return GALLERY / f"{name}.py"


def assert_healthy(sb: Sandbox) -> None:
    """The next submission in the same run is graded normally, and nothing was left behind."""
    calls = attention_calls(2, seed=7)
    res = sb.run(REFERENCE, calls)
    assert res.failure is None and res.failures == {}, (res.failure, res.failures)
    assert res.load is not None and res.load.kind == "loaded"
    causal_attention = load_reference().causal_attention
    for call in calls:
        reply = res.replies[call.meta["id"]]
        out, weights = causal_attention(*(call.tensors[x] for x in "qkv"))
        assert reply.meta["ok"] is True
        torch.testing.assert_close(reply.tensors["out"], out)
        torch.testing.assert_close(reply.tensors["weights"], weights)
    assert no_leftovers(sb)


def no_leftovers(sb: Sandbox, within_s: float = 3.0) -> bool:
    """The zygote reaps a finished child while the grader checks its replies: give it a moment."""
    end = time.monotonic() + within_s
    while leftover_processes(sb):
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def load_reference():
    spec = importlib.util.spec_from_file_location("_reference_attention", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def leftover_processes(sb: Sandbox) -> list[int]:
    """Processes below the zygote: none may survive a finished submission. The one spare child the
    zygote keeps ready for the next submission is not a leftover: it is named so, runs as the
    zygote's own user (a submission's processes run as the slot's), and there is only one."""
    out, spares = [], []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
                uid = os.stat(f"/proc/{name}").st_uid
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == sb.zygote_pid:
                spare = stat[stat.find(b"(") + 1 : stat.rfind(b")")] == SPARE_NAME.encode() and uid == os.geteuid()
                (spares if spare else out).append(int(name))
    return out + spares[1:]


_BASELINE: dict[int, set[str]] = {}


def baseline(sb: Sandbox) -> Sandbox:
    """Note what the slot uid already owned (a stale leftover of an older grader on this host),
    so a test judges only what its own run left."""
    _BASELINE[sb.uid] = set(owned_by(sb.uid))
    return sb


def left_behind(uid: int, within_s: float = 5.0) -> list[str]:
    """owned_by(uid), less its baseline, once the zygote has reaped the last child (it does so
    while the grader checks the replies): [] as soon as all is gone, else what remains after `within_s`."""
    end = time.monotonic() + within_s
    while (found := [x for x in owned_by(uid) if x not in _BASELINE.get(uid, ())]) and time.monotonic() < end:
        time.sleep(0.05)
    return found


# The runner without the native-code lock (unlocked_runner.py): for tests of the layers below it.
UNLOCKED = f"{Path(__file__).with_name('unlocked_runner.py')}:serve"
