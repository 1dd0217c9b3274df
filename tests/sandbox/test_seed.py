"""The seed: warm servers forked from the grader itself hold nothing secret.

A submission run through a seeded sandbox scans its own memory (every anonymous mapping, the heap
and the stack, where a fork keeps the grader's environment) for the secret the grader was started
with. The negative control forks the grader without the seed's wiping and finds it, so the scan
has teeth.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARK = "tEsTsEcReT-"

SCAN = textwrap.dedent(f'''
    import ctypes, os

    def scan():
        """What follows each occurrence of the marker in this process's writable memory."""
        mark, hits = {MARK!r}.encode(), []
        with open("/proc/self/maps") as f:
            regions = [line.split() for line in f]
        for fields in regions:
            path = fields[5] if len(fields) > 5 else ""
            if "r" not in fields[1] or path not in ("", "[heap]", "[stack]"):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            for at in range(start, end, 1 << 24):
                chunk = ctypes.string_at(at, min(1 << 24, end - at) )
                i = chunk.find(mark)
                while i >= 0 and len(hits) < 300:
                    hits.append(chunk[i:i + 60].hex())
                    i = chunk.find(mark, i + 1)
        hits += [v for v in os.environ.values() if {MARK!r} in v]
        try:
            with open("/proc/self/environ", "rb") as f:
                hits.append(f.read().hex())
        except OSError:
            pass
        return hits
''')

SUBMISSION = SCAN + textwrap.dedent('''
    print("SCAN", *scan())

    def causal_attention(q, k, v):
        return v, v
''')

DRIVER = SCAN + textwrap.dedent('''
    import sys
    from pathlib import Path

    import torch
    from grader.sandbox import Limits, Sandbox, seed

    seed.plant()
    control = os.fork()
    if control == 0:  # the negative control: a fork of the grader that wiped nothing
        print("CONTROL", *scan(), flush=True)
        os._exit(0)
    os.waitpid(control, 0)
    # Unlocked: the scan reads memory through ctypes, as native code past the lock would (unlocked_runner.py).
    unlocked = str(Path(sys.argv[2]) / "tests" / "sandbox" / "unlocked_runner.py") + ":serve"
    with Sandbox(runner=unlocked, limits=Limits(load_s=20, submission_s=30), quiet=True) as sb:
        result = sb.run(Path(sys.argv[1]), [])
        with open(f"/proc/{sb.zygote_pid}/cmdline", "rb") as f:
            print("ZYGOTE", f.read().split(b"\\0")[1].decode())
    print("ISOLATION", sb.isolation)
    print(result.output)
    print("LOAD", result.load.kind if result.load else result.failure)
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the seed's wiping and this scan are Linux's")
def test_a_seeded_sandbox_holds_no_secret(tmp_path):
    secret = MARK + uuid.uuid4().hex
    (tmp_path / "scanner.py").write_text(SUBMISSION)
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {**os.environ, "GRADER_SECRET": secret, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path / "scanner.py"), str(ROOT)],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = done.stdout
    assert done.returncode == 0, done.stderr[-3000:]
    control = next(line for line in out.splitlines() if line.startswith("CONTROL"))
    assert secret.encode().hex()[len(MARK) * 2:] in control, "the scan must find the secret in a plain fork"
    assert "LOAD loaded" in out, out[-3000:]
    # Forked from this process (its command line), not a second interpreter importing torch again.
    assert f"ZYGOTE {tmp_path / 'driver.py'}" in out
    scanned = next(line for line in out.splitlines() if line.startswith("SCAN"))
    secret_hex = secret.encode().hex()[len(MARK) * 2:]
    assert secret_hex not in scanned and secret[len(MARK):] not in scanned


def test_without_a_seed_the_server_is_a_fresh_interpreter_that_grades_the_same(spawned_sandboxes):
    """The session's sandboxes fork from its seed (tests/conftest.py); a notebook or an embedding program
    has none, and its sandbox starts `python -I` with an empty environment: that path, graded the same."""
    from sandbox_kit import TEST_LIMITS, assert_healthy

    from grader.sandbox import Sandbox

    with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        with open(f"/proc/{sb.zygote_pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        assert argv[1:3] == [b"-I", b"-c"], argv
        assert_healthy(sb)
