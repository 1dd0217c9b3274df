"""How a command's process begins and ends: torch imported once, the sandbox's seed planted before
anything secret is read, and the fast way out. Shared by the command line and `run_autograder`."""

from __future__ import annotations

import atexit
import os
import sys


def plant_seed() -> None:
    """Before any rubric, secret or submission is read: the sandbox's servers are forked from
    this copy, so the process imports torch once and they hold nothing secret."""
    import gc

    import torch

    from grader.sandbox import seed

    # torch's objects live as long as the process: kept out of every later collection, the
    # grader's own imports and the seed's copy-on-write pages stop paying for them.
    gc.freeze()

    seed.plant()
    # This process is the command's own: the grader's expected values are tiny, threads only cost.
    torch.set_num_threads(1)


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
