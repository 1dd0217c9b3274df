"""An interrupt that lands inside `check()` reaches the notebook as a plain KeyboardInterrupt.

Seen once in test_kernel: the interrupt landed while inspect.getsource's OSError was being handled, the
KeyboardInterrupt carried that OSError as its context, IPython failed while formatting the chained
traceback (a frame with no line number) and the cell was reported "ok". Whatever `check()` was doing,
the student must see that the cell was interrupted, with a traceback IPython can print."""

from __future__ import annotations

import traceback

import pytest

import grader.notebook as nb


def _interrupted_while_handling_an_oserror(*objects):
    try:
        raise OSError("could not get source code")
    except OSError:
        raise KeyboardInterrupt from OSError  # what a signal landing in the handler leaves


def test_an_interrupt_inside_check_is_raised_without_what_check_was_handling(monkeypatch):
    monkeypatch.setattr(nb, "collect_source", _interrupted_while_handling_an_oserror)

    def CausalThing():  # noqa: N802 (any definition; collect_source is replaced)
        return None

    with pytest.raises(KeyboardInterrupt) as caught:
        nb.check(CausalThing)
    exc = caught.value
    assert exc.__cause__ is None and exc.__suppress_context__, "the OSError must not travel with the interrupt"
    frames = traceback.extract_tb(exc.__traceback__)
    assert all(isinstance(f.lineno, int) for f in frames)
    assert frames[-1].name == "check", frames  # raised afresh from check itself, not deep in a library
    assert "check() was interrupted" in str(exc)
