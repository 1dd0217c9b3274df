"""A class run, in one place: intake's students -> store lookups -> warm sandboxes -> judging -> store -> outputs.

Only sources the store has not seen with this rubric and secret are graded; identical sources are graded
once. While one file is judged here, the next ones run in their own warm sandboxes, so the sandbox's waits
(fork, pipes) and the checks' arithmetic overlap on the machine's cores. One broken file never stops the
others: a failure while judging it is that student's `grader_error`, and the run goes on. With `jobs` > 1
(`grade --jobs N`), N judging processes share the sources and the store (`Judges`).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe, wait
from pathlib import Path

from grader.batch.gradebook import gradebook_csv, skipped_csv
from grader.batch.junit import junit_xml
from grader.batch.lms import BOM, LmsExport, write_lms
from grader.batch.models import ClassSummary, StudentResult
from grader.batch.names import handed_back, student_filename
from grader.batch.overrides import Change, apply_overrides, changes, changes_csv
from grader.batch.progress import ClassProgress
from grader.batch.review import review_csv
from grader.batch.similarity import similar_pairs
from grader.batch.store import STORE_NAME, ShardRecord, Store, class_listing
from grader.batch.summary import summarize
from grader.grade import Executed, default_rubric, execute, judge
from grader.intake.collect import Intake, Prepared, shard_of
from grader.intake.models import Skipped
from grader.paths import INSTRUCTOR_RUBRIC, atomic_write_bytes, atomic_write_text
from grader.report.models import Report
from grader.rubric import Rubric
from grader.sandbox import Sandbox, seed


@dataclass
class ClassRun:
    results: list[StudentResult]
    skipped: list[Skipped]
    summary: ClassSummary
    graded_now: int = 0  # distinct sources graded in this run
    jobs: int = 1  # judging processes that graded them
    from_store: int = 0  # students whose report the store already held
    seconds: float = 0.0
    written: list[Path] = field(default_factory=list)
    lms_left_out: list[str] = field(default_factory=list)  # graded rows the --lms files could not carry, and why
    changes: list[Change] | None = None  # who moved since the last run into this --out (None: there was none)
    stale_overrides: list[str] = field(default_factory=list)  # overrides made for a submission since replaced


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' with 1 <= K <= N (Slurm's and GitHub's matrix indices are easy to shift by one)."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard takes K/N, e.g. 2/3, not {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: K must be between 1 and N")
    return k, n


def grade_sources(paths: list[Path], *, rubric: Rubric, secret: str | None, hidden: Iterable[Path] = (),
                  sandboxes: list[Sandbox] | None = None, workers: int = 2,
                  ) -> Iterator[tuple[int, Report | None, str]]:
    """(index, report, error) for each path in order; error is set (and report None) when judging failed."""
    if not paths:
        return
    hidden = list(hidden)
    owned = [] if sandboxes else [Sandbox() for _ in range(max(1, min(workers, len(paths))))]
    free: queue.Queue[Sandbox] = queue.Queue()
    for sb in owned:
        sb.start()
    for sb in sandboxes or owned:
        free.put(sb)

    def run(path: Path) -> Executed:
        sb = free.get()  # each sandbox serves one file at a time
        try:
            return execute(path, sandbox=sb, rubric=rubric, secret=secret, audience="instructor", hidden_paths=hidden)
        finally:
            free.put(sb)

    try:
        with ThreadPoolExecutor(max_workers=free.qsize(), thread_name_prefix="sandbox") as ahead:
            window = [ahead.submit(run, p) for p in paths[: free.qsize()]]
            for i, following in enumerate([*paths[len(window):], *[None] * len(window)]):
                executed = window.pop(0).result()
                if following is not None:
                    window.append(ahead.submit(run, following))
                try:
                    report = judge(executed, rubric=rubric, audience="instructor")  # guarded: grader_error inside
                    yield i, report, (f"the grader failed on this submission: {report.error}"
                                      if report.status == "grader_error" else "")
                except Exception as exc:  # noqa: BLE001 - one file's failure is its own row, never the class's
                    print(f"grader: judging {paths[i].name} failed: {exc!r}", file=sys.stderr)
                    yield i, None, f"the grader failed on this submission: {type(exc).__name__}"
    finally:
        for sb in owned:
            sb.close()


class Judges:
    """`grade --jobs N`: N judging processes forked from this one (torch already imported, the seed
    planted), each with its own warm sandboxes, grading paths i, i + N, i + 2N, ... Each saves its
    reports in the shared store as it goes (a killed run keeps them) and sends each back as JSON, never
    pickled; this process writes every output from them, so the gradebook is the same for any N.

    Forked before this process starts a thread of its own (the progress bar), so no lock is copied held."""

    def __init__(self, paths: list[Path], shas: list[str], jobs: int, *, rubric: Rubric, secret: str | None,
                 hidden: list[Path], store: Path | None, workers: int):
        self.pending = set(range(len(paths)))
        self.children: dict[Connection, int] = {}
        sys.stdout.flush()
        sys.stderr.flush()
        for k in range(jobs):
            theirs_r, mine = Pipe(duplex=False)
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    theirs_r.close()
                    for other in self.children:
                        other.close()
                    _judge_part(mine, [(i, paths[i], shas[i]) for i in range(k, len(paths), jobs)],
                                rubric=rubric, secret=secret, hidden=hidden, store=store, workers=workers)
                except BaseException as exc:  # noqa: BLE001 - a judge never returns into the class run's code
                    print(f"grader: judging process {k + 1} of {jobs} failed: {exc!r}", file=sys.stderr)
                    code = 70
                os._exit(code)
            mine.close()
            self.children[theirs_r] = pid

    def __iter__(self) -> Iterator[tuple[int, Report | None, str]]:
        while self.children:
            for conn in wait(list(self.children)):
                try:
                    head, _, report = conn.recv_bytes().partition(b"\n")
                except EOFError:
                    self._reap(conn)
                    continue
                msg = json.loads(head)
                i = msg["i"]
                self.pending.discard(i)
                yield i, Report.model_validate_json(report) if report else None, msg["error"]
        for i in sorted(self.pending):  # a judge that died took these with it: their rows say so
            yield i, None, "the grader failed on this submission: its judging process ended early (rerun to retry)"
        self.pending.clear()

    def _reap(self, conn: Connection) -> None:
        pid = self.children.pop(conn)
        conn.close()
        os.waitpid(pid, 0)

    def close(self) -> None:
        """Interrupted (Ctrl-C, an error here): the judges still running are stopped, never left behind."""
        for conn, pid in list(self.children.items()):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self._reap(conn)


def _judge_part(conn: Connection, part: list[tuple[int, Path, str]], *, rubric: Rubric, secret: str | None,
                hidden: list[Path], store: Path | None, workers: int) -> None:
    """Inside one judge: its part of the class, graded as a one-process run grades, each report sent back."""
    saved = Store.open(store, rubric, secret) if store is not None else None
    for j, report, error in grade_sources([p for _, p, _ in part], rubric=rubric, secret=secret, hidden=hidden,
                                          workers=workers):
        i, _, sha = part[j]
        text = report.model_dump_json() if report is not None else ""  # once, for the store and the run
        if saved is not None and report is not None and report.status == "graded":
            saved.put_json(sha, text)
        # One line of JSON, then the report's own JSON as it is (not escaped into a string of the first).
        conn.send_bytes(json.dumps({"i": i, "error": error}).encode() + b"\n" + text.encode())
    conn.close()
    if saved is not None:
        saved.close()


def grade_files(paths: Iterable[Path], *, rubric: Rubric | None = None, secret: str | None = None,
                sandboxes: list[Sandbox] | None = None, workers: int = 2) -> list[Report]:
    """Files as they are, in order (no intake, no store): the benchmark's and the tests' plain class run."""
    paths = [Path(p) for p in paths]
    rubric = rubric or default_rubric(INSTRUCTOR_RUBRIC)
    folders = sorted({p.resolve().parent for p in paths})  # other students' files stay out of reach
    return [r for _, r, _ in grade_sources(paths, rubric=rubric, secret=secret, hidden=folders,
                                           sandboxes=sandboxes, workers=workers)]


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


STAGED = "staged"  # under --out: the files being graded, only while a run grades (removed once empty)


def _staging(out: Path | None) -> Path:
    if out is None:
        return Path(tempfile.mkdtemp(prefix="run-"))
    for attempt in range(5):
        try:
            return Path(tempfile.mkdtemp(prefix="run-", dir=_private_dir(out / STAGED)))
        except FileNotFoundError:  # another run into this --out removed the emptied folder just then
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def grade_class(intake: Intake, *, rubric: Rubric, secret: str | None, out: Path | None,
                shard: tuple[int, int] | None = None, hidden: Iterable[Path] = (), workers: int = 2,
                sandboxes: list[Sandbox] | None = None, progress: bool = False, junit: Path | None = None,
                on_result: Callable[[StudentResult], None] | None = None, published: bool = False,
                lms: LmsExport | None = None, jobs: int = 1) -> ClassRun:
    """`published`: the results are released, so each student's feedback/ copy shows the grade.
    `jobs`: judging processes, each with its own warm sandboxes (the outputs are the same for any number)."""
    t0 = time.monotonic()
    people = [p for p in intake.students if shard is None or shard_of(p.student.key, shard[1]) == shard[0] - 1]
    store = Store.open(_private_dir(out) / STORE_NAME if out else None, rubric, secret)
    overrides = store.overrides()
    last_run = store.latest()
    before = store.results(last_run) if last_run else []
    apply_overrides(before, overrides)  # the last run as it was reported
    names = {p.student.key: student_filename(p.student.key, p.student.name or p.student.id, p.student.id) for p in people}
    reports: dict[str, Report] = {}
    errors: dict[str, str] = {}
    for p in people:
        if p.source is not None and p.student.source_sha256 not in reports:
            hit = store.get(p.student.source_sha256)
            if hit is not None:
                reports[p.student.source_sha256] = hit
    from_store = sum(p.source is not None and p.student.source_sha256 in reports for p in people)
    todo: dict[str, Prepared] = {}
    for p in people:
        if p.source is not None and p.student.source_sha256 not in reports:
            todo.setdefault(p.student.source_sha256, p)
    by_sha: dict[str, list[Prepared]] = {}
    for p in people:
        by_sha.setdefault(p.student.source_sha256, []).append(p)

    if out:
        _private_dir(out / "reports")
    # Each run stages its own copies: two runs sharing an --out never truncate or delete each other's.
    staging = _staging(out)
    results: dict[str, StudentResult] = {}

    def finish(p: Prepared) -> StudentResult:
        s = p.student
        rep = reports.get(s.source_sha256) if p.source is not None else None
        status = (("ungradable" if any(f.kind == "ungradable" for f in s.flags) else "no_submission")
                  if p.source is None else "graded" if rep else "grader_error")
        if rep is not None:
            rep = rep.model_copy(update={"submission": s.submission})
        r = StudentResult(student=s, status=status, report=rep, report_name=names[s.key],
                          error=errors.get(s.source_sha256, "") if p.source is not None else "")
        if out and rep is not None:
            write_derived(out / "reports" / f"{r.report_name}.json", rep.model_dump_json(indent=1).encode())
            if s.converted:  # the file the student was graded on, kept beside the report
                write_derived(out / "reports" / f"{r.report_name}.graded.py", p.source)
        results[s.key] = r
        if on_result:
            on_result(r)
        return r

    def staged(p: Prepared) -> Path:
        path = staging / f"{p.student.source_sha256}.py"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(p.source)
        return path

    judges = None
    try:
        settled = [p for p in people if p.source is None or p.student.source_sha256 in reports]
        for p in settled:
            finish(p)
        shas = list(todo)
        paths = [staged(todo[sha]) for sha in shas]
        hide = [*hidden, staging, *([out] if out else [])]
        jobs = min(jobs, len(paths)) if seed.shareable() else 1
        if jobs > 1:  # the judges save their own reports in the store
            judges = Judges(paths, shas, jobs, rubric=rubric, secret=secret, hidden=hide, store=store.path,
                            workers=workers)
        graded = judges if judges is not None else grade_sources(paths, rubric=rubric, secret=secret, hidden=hide,
                                                                 sandboxes=sandboxes, workers=workers)
        with ClassProgress(len(people), enabled=progress, done=len(settled)) as bar:
            for i, report, error in graded:
                sha = shas[i]
                if report is not None and report.status == "graded":
                    if judges is None or store.path is None:
                        store.put(sha, report)  # saved at once: a killed run keeps every report graded so far
                    reports[sha] = report
                else:
                    errors[sha] = error
                for p in by_sha[sha]:
                    finish(p)
                bar.advance(len(by_sha[sha]))
    finally:
        if judges is not None:
            judges.close()
        shutil.rmtree(staging, ignore_errors=True)
        if out:
            with contextlib.suppress(OSError):  # still in use by another run into this --out: it removes it
                (out / STAGED).rmdir()
    ordered = [results[p.student.key] for p in people]
    store.record(ordered, intake.skipped)
    store.record_run(ShardRecord(
        listing=class_listing([p.student.key for p in intake.students]), shard=shard[0] if shard else 1,
        shards=shard[1] if shard else 1, rubric=store.rubric, secret=store.secret, students=len(intake.students),
        platforms=sorted({p.student.platform for p in intake.students}), published=published,
        lms=lms.model_copy(update={"worksheet": lms.worksheet.resolve()}) if lms and lms.worksheet else lms))
    store.close()
    stale = apply_overrides(ordered, overrides)
    for r in ordered:
        if out and r.report is not None and r.report.adjustments:
            write_derived(out / "reports" / f"{r.report_name}.json", r.report.model_dump_json(indent=1).encode())
    summary = summarize(ordered, intake.skipped)
    summary.similar = similar_pairs({p.student.key: p.source for p in people if p.source is not None})
    run = ClassRun(ordered, list(intake.skipped), summary, graded_now=len(todo) - len(errors),
                   from_store=from_store, seconds=time.monotonic() - t0, stale_overrides=stale, jobs=max(jobs, 1))
    if last_run:
        run.changes = changes(before, ordered, regraded=last_run != (store.rubric, store.secret))
        if out:
            atomic_write_text(out / "changes.csv", changes_csv(run.changes))
            run.written.append(out / "changes.csv")
    if out:
        run.written += write_outputs(out, run.results, run.skipped, run.summary, published=published, lms=lms)
        if lms:
            written, run.lms_left_out = write_lms(out, run.results, lms, published=published,
                                                  feedback=lambda r: feedback_text(r, published=published))
            run.written += written
    if junit:
        atomic_write_text(junit, junit_xml(run.results))
        run.written.append(junit)
    return run


def write_derived(path: Path, data: bytes) -> None:
    """A file the store can always rebuild: replaced whole (never half-written), not fsynced, skipped if unchanged."""
    atomic_write_bytes(path, data, durable=False, skip_unchanged=True)


def write_feedback(out: Path, results: list[StudentResult], *, published: bool) -> list[Path]:
    """feedback/: each graded student's report in the student view, ready to hand back (titled with the file as
    they named it), in a folder only the instructor can read."""
    folder = _private_dir(out / "feedback")
    written = []
    for r in results:
        if r.report is None:
            continue
        path = folder / f"{r.report_name}.md"
        atomic_write_bytes(path, feedback_text(r, published=published).encode(), durable=False, skip_unchanged=True)
        written.append(path)
    return written


def feedback_text(r: StudentResult, *, published: bool) -> str:
    """What a student receives: their report in the student view, titled with the file as they named it."""
    from grader.report.markdown import render_markdown

    return render_markdown(handed_back(r.report, r.student), audience="student", published=published)


def write_outputs(out: Path, results: list[StudentResult], skipped: list[Skipped], summary: ClassSummary,
                  *, published: bool = False, lms: LmsExport | None = None) -> list[Path]:
    paths = [out / "gradebook.csv", out / "summary.json", out / "skipped.csv", out / "review.csv"]
    write_feedback(out, results, published=published)
    atomic_write_text(paths[0], (BOM if lms and lms.bom else "") + gradebook_csv(results))
    atomic_write_text(paths[3], review_csv(summary.review))
    # rows (with timings) and similar pairs go to summary.html/md only: summary.json stays the same
    # whether a class is graded in one run or in shards merged later.
    atomic_write_text(paths[1], summary.model_dump_json(indent=1, exclude={"rows", "similar"}))
    atomic_write_text(paths[2], skipped_csv(skipped))
    from grader.report.summary import write_summary  # matplotlib and Jinja2 only when a summary is written

    return paths + write_summary(out, summary)
