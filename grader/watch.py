"""`check FILE --watch`: regrade on every save through the same warm sandbox, and say only what changed.

The first run prints the whole report; after that each save prints one line with the score and
the grader's time (a save of unchanged code says so), then the checks that started or stopped
passing, a failing check whose finding or hint changed, and each diagnosis that appeared or went away. The folder is watched rather than the
file, because editors save by writing a new file and renaming it over the old one.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from threading import Event

from grader.report.models import Report
from grader.report.view import points_text

FAILING = ("failed", "error")


def changes(before: Report, after: Report) -> list[str]:
    """What a student needs to read after a save: the differences only, in the report's own words."""
    lines: list[str] = []
    old = {c.id: c for c in before.checks}
    # One finding shared by many checks (the file no longer compiles) is said once, not per check.
    newly = {c.id: _first_line(c.feedback) for c in after.checks
             if c.status in FAILING and (w := old.get(c.id)) is not None and w.status != c.status}
    count = Counter(newly.values())
    shared = [f for f in dict.fromkeys(newly.values()) if count[f] > 2]  # in report order: the same text every run
    for finding in shared:
        titles = [c.title for c in after.checks if newly.get(c.id) == finding]
        lines.append(f"  now failing: {len(titles)} checks ({', '.join(titles[:3])}, ...): {finding}")
    for c in after.checks:
        if newly.get(c.id) in shared:
            continue
        was = old.get(c.id)
        if was is None or was.status == c.status:
            if c.status in FAILING and was is not None:
                finding = _first_line(c.feedback) != _first_line(was.feedback)
                if finding:
                    lines.append(f"  still failing: {c.title}: {_first_line(c.feedback)}")
                if c.hint and c.hint != was.hint:
                    lines.append(f"    {c.hint}" if finding else f"  still failing: {c.title}. {c.hint}")
            continue
        if c.status == "passed":
            lines.append(f"  now passing: {c.title}")
        elif c.status in FAILING:
            lines.append(f"  now failing: {c.title}: {_first_line(c.feedback)}")
            if c.hint:
                lines.append(f"    {c.hint}")
        else:
            lines.append(f"  now {c.status}: {c.title}")
    # Every bug named now and not before, and every one gone, whatever heads the list.
    before_ids = {d.id for d in before.diagnoses}
    after_ids = {d.id for d in after.diagnoses}
    for d in after.diagnoses:
        if d.id not in before_ids:
            lines.append(f"  diagnosis: {d.title}. {_first_line(d.message)} (reread: {d.section})")
    if before.diagnoses and not after.diagnoses:
        lines.append("  no diagnosis any more")
    else:
        lines += [f"  no longer found: {d.title}" for d in before.diagnoses if d.id not in after_ids]
    if before.runtime.output != after.runtime.output and after.runtime.output:
        lines.append(f"  your code printed: {_first_line(after.runtime.output)}")
    return lines


def summary_line(before: Report | None, after: Report, grader_s: float) -> str:
    stamp = time.strftime("%H:%M:%S")
    score = points_text(after.score, after.max_score)
    took = f"graded in {grader_s * 1000:.0f} ms"
    if before is None:
        return f"{stamp}  {score}  ({took})"
    if before.score == after.score:
        return f"{stamp}  still {score}  ({took})"
    return f"{stamp}  {points_text(before.score, before.max_score)} -> {score}  ({took})"


def all_pass(report: Report) -> bool:
    return not any(c.status in FAILING for c in report.checks)


def watch(path: Path, *, grade: Callable[[Path], Report], show: Callable[[Report], None],
          say: Callable[[str], None] = print, stop: Event | None = None) -> None:
    """Grade now, then after each save of `path`, until interrupted (or `stop` is set)."""
    from watchfiles import Change
    from watchfiles import watch as watch_changes

    path = path.resolve()
    last_source = _read(path)  # before grading: a save from now on differs from what was graded
    t0 = time.perf_counter()
    last = grade(path)
    show(last)
    say(summary_line(None, last, time.perf_counter() - t0))
    say(f"watching {path.name}: save it to regrade; Ctrl-C stops")

    def saved(change: Change, changed: str) -> bool:
        return Path(changed).name == path.name and change != Change.deleted

    # Every second without an event the content is compared too: a save made before the watcher
    # was in place (or one a file system does not report) is still seen.
    for events in watch_changes(path.parent, watch_filter=saved, stop_event=stop, debounce=1600, step=50,
                                rust_timeout=1000, yield_on_timeout=True):
        source = _read(path)  # read before grading, for the same reason
        if source is None:
            say(f"{time.strftime('%H:%M:%S')}  {path.name} cannot be read; waiting for the next save")
            continue
        if source == last_source:
            if events:  # saved with the same content: one line, so a save is never met by silence
                say(f"{time.strftime('%H:%M:%S')}  saved, nothing changed: still "
                    f"{points_text(last.score, last.max_score)}")
            continue  # the clock's tick, or a save of the same code: the report would be the same
        last_source = source
        t0 = time.perf_counter()
        report = grade(path)
        took = time.perf_counter() - t0
        say(summary_line(last, report, took))
        for line in changes(last, report):
            say(line)
        if all_pass(report) and not all_pass(last):
            say("  every check passes")
        last = report


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""

