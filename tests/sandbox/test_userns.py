"""Without root: the same new root, mount, network and IPC namespaces inside a user namespace.
Forced here with `userns=True` (as root the mapping is root's own uid), which is the path a
user without root takes; skipped where user namespaces are not available."""

from __future__ import annotations

import pytest
from sandbox_kit import REFERENCE, TEST_LIMITS, UNLOCKED, assert_healthy, attention_calls, gallery


@pytest.fixture(scope="module")
def sandbox(sandbox_for):
    """This module's own kind: a user namespace, no root powers (the unlocked runner, as before the lock)."""
    sb = sandbox_for(TEST_LIMITS, runner=UNLOCKED, userns=True)
    if sb.isolation != "namespaces+userns":
        pytest.skip(f"no user namespaces here (reached {sb.isolation})")
    return sb


def test_the_level_reached_is_reported(sandbox):
    res = sandbox.run(REFERENCE, attention_calls(1))
    assert res.isolation == "namespaces+userns" and res.failures == {}
    assert_healthy(sandbox)


def test_nothing_left_for_the_next_submission(sandbox):
    sandbox.run(gallery("leave_state"), attention_calls(1))
    found = sandbox.run(gallery("read_state"), attention_calls(1))
    leaks = [line for line in found.output.splitlines() if line.startswith("FOUND") and "process" not in line]
    assert leaks == [], leaks  # files and SysV IPC; processes are the host's /proc at this level


def test_the_host_is_out_of_sight(sandbox, tmp_path):
    secret_dir = tmp_path / "instructor-only-folder"
    secret_dir.mkdir()
    (secret_dir / "answers.txt").write_text("42")
    probe = tmp_path / "look.py"
    probe.write_text(
        f"import os\nprint('SEES' if os.path.exists({str(secret_dir)!r}) else 'NOPE')\n"
        "print(open('/proc/self/mountinfo').read())\n"
        "try:\n    open('/usr/w', 'w')\n    print('WROTE /usr')\nexcept OSError:\n    print('READ-ONLY /usr')\n"
        "def causal_attention(q, k, v):\n    return v, v\n"
    )
    res = sandbox.run(probe, attention_calls(1))
    assert "NOPE" in res.output and "READ-ONLY /usr" in res.output, res.output
    assert "instructor-only-folder" not in res.output and str(tmp_path) not in res.output
