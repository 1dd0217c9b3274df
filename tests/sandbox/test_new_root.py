"""The child's new root keeps the interpreter reachable wherever it lives, /tmp included (a CI clone)."""

from __future__ import annotations

import os
import sys

import pytest

from grader.sandbox import harden
from grader.sandbox.client import _keep_paths

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"),
                                reason="new roots need root on Linux")


@needs_root
def test_a_kept_path_under_tmp_stays_visible_inside_the_private_tmp(tmp_path):
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip(f"pytest's temporary folder {tmp_path} is not under /tmp")
    if not harden.probe_namespaces(_keep_paths(), own_pids=False):
        pytest.skip("mount namespaces are not available here")
    kept = tmp_path / "venv"
    kept.mkdir()
    (kept / "marker").write_text("here")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        seen = b"0"
        try:
            harden.enter_namespaces()
            harden.new_root([str(kept)], own_pids=False)
            seen = b"1" if (kept / "marker").read_text() == "here" else b"0"
        except BaseException:  # noqa: BLE001 - the parent reads the verdict from the pipe
            pass
        finally:
            os.write(w, seen)
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1", "a kept path under /tmp vanished below the private /tmp"
