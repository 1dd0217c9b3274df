"""Trusted code (the reference, a catalogue entry) answered in this process by the runner's own code.

The replies are the frames a child would send, so the catalogue is observed through exactly the
lens students get. Never for a submission: its code runs only in a hardened child.
"""

from __future__ import annotations

from pathlib import Path

from grader.sandbox.runner import answer, load_module, tripwires
from grader.sandbox.wire import Frame


def answer_trusted(path: Path, calls: dict[str, Frame]) -> dict[str, Frame]:
    """Load the trusted file at `path` and answer each call, keyed as given, with the tripwires set."""
    with tripwires():
        module, _ = load_module(str(path), name=f"catalogue_{path.stem}")
        return {key: answer(module, call) for key, call in calls.items()}
