"""How a command's process begins and ends: torch imported once, the sandbox's seed planted before
anything secret is read, and the fast way out. Shared by the command line and `run_autograder`."""

from __future__ import annotations

import atexit
import os
import sys


def plant_seed(*, huge_pages: bool = False) -> None:
    """Before any rubric, secret or submission is read: the sandbox's servers are forked from
    this copy, so the process imports torch once and they hold nothing secret. `huge_pages`: for a
    command that grades many files (see `huge_pages`)."""
    import gc

    import torch

    from grader.sandbox import seed

    # torch's objects live as long as the process: kept out of every later collection, the
    # grader's own imports and the seed's copy-on-write pages stop paying for them.
    gc.freeze()
    if huge_pages:
        collapse_heap()

    seed.plant()
    # This process is the command's own: the grader's expected values are tiny, threads only cost.
    torch.set_num_threads(1)


_MADV_COLLAPSE = 25  # Linux 6.1 on; an older kernel, or THP set to "never", refuses it and nothing changes
_HUGE = 2 << 20


def collapse_heap() -> int:
    """Gather this process's anonymous memory (torch's import left ~150 MiB of it) into 2 MiB pages
    now, once; returns the bytes gathered. Every process forked from here after (the seed, the
    sandbox's servers and each submission's child) then maps it with one entry per 2 MiB instead of
    512: the server's fork of a child copies that much less, a child's exit tears that much less down
    (about 10 ms of a class submission's ~150 ms on the sandbox's side, measured on a 2-core machine),
    while copy-on-write stays per 4 KiB page (the kernel splits a shared huge page on a write). It costs
    this process ~0.2 s of CPU once, more than a single file saves: a class's command asks for it,
    `check` and a single file's `grade` do not. Only the memory already there is gathered; new
    allocations stay as the system's THP setting has them (no MADV_HUGEPAGE)."""
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps") as f:
            maps = f.read().splitlines()
    except (OSError, AttributeError):
        return 0
    gathered = 0
    for line in maps:
        fields = line.split()
        # Private, writable and anonymous (or the brk heap); file mappings and stacks are left as they are.
        if len(fields) < 5 or fields[1][:2] != "rw" or fields[1][3] != "p" or fields[5:] not in ([], ["[heap]"]):
            continue
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        lo, hi = -(-lo // _HUGE) * _HUGE, hi // _HUGE * _HUGE
        if hi > lo and libc.madvise(lo, hi - lo, _MADV_COLLAPSE) == 0:
            gathered += hi - lo
    return gathered


def leave(code: int) -> None:
    """Exit with `code` without the interpreter's teardown. The exit handlers run first (a notebook
    sandbox's close, logging) and the output is flushed; what is skipped is the teardown of torch's
    modules, which costs a cold run about as much as grading one file and changes nothing anyone can see."""
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a reader that went away (`| head`): nothing left to tell it
        code = code or 1
    os._exit(code)
