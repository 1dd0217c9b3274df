"""A class's command gathers torch's heap into huge pages before it plants the seed; a single file's does not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.cli import _a_class

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

_GATHER = """
import os, torch
from grader.process import collapse_heap
def huge():
    return int(open("/proc/self/smaps_rollup").read().split("AnonHugePages:")[1].split()[0]) << 10
before, gathered = huge(), collapse_heap()
pid = os.fork()
if pid == 0:  # a server forked after it maps the same huge pages
    print(before, gathered, huge(), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
"""


@pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(), reason="no transparent huge pages here")
def test_the_heap_torch_left_is_gathered_into_huge_pages_that_a_fork_keeps():
    done = subprocess.run([sys.executable, "-c", _GATHER], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    before, gathered, child = map(int, done.stdout.split())
    if not gathered:
        pytest.skip("this kernel does not collapse on request (MADV_COLLAPSE is Linux 6.1 on)")
    assert gathered >= 64 << 20 and child >= before + gathered // 2, (before, gathered, child)


def test_only_a_command_that_names_many_submissions_asks_for_huge_pages(tmp_path):
    one = tmp_path / "attention.py"
    one.write_text("")
    notebook = tmp_path / "attention.ipynb"
    notebook.write_text("{}")
    assert not _a_class([str(one)]) and not _a_class([str(notebook)])
    assert _a_class([str(tmp_path)]) and _a_class([str(one), str(notebook)]) and _a_class([str(tmp_path / "c.zip")])
