"""The class run's progress on stderr: a rich bar (count, rate, ETA) while it runs, nothing when piped or quiet."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    def render(self, task) -> Text:
        return Text(f"{task.speed:.1f}/s" if task.speed else "", style="progress.data.speed")


class ClassProgress:
    """Advanced once per student graded now; `done` counts those settled before grading starts."""

    def __init__(self, total: int, *, enabled: bool, done: int = 0):
        console = Console(stderr=True)
        self._bar = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                             TextColumn("eta"), TimeRemainingColumn(), console=console, transient=True,
                             disable=not (enabled and console.is_terminal))
        # Students already settled (store hits, nothing handed in) start the bar: the rate and ETA are grading's.
        self._task = self._bar.add_task("grading", total=total, completed=done)

    def __enter__(self) -> ClassProgress:
        self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.stop()

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)
