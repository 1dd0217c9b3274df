"""The course's store: submissions, their queue and their reports, and sign-in sessions, in SQLite (WAL).

A submission is `queued`, `claimed` by one worker, or `graded`. A worker claims under a start id it
registers with its process's identity (pid and the kernel's start time of that pid), so a claim is
put back in the queue only when the process that holds it is gone: a live worker's claim never is,
and a dead worker's pid reused by another process does not keep its claim alive. Each submission is
graded exactly once: `finish` writes only for the claim's holder."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from grader.batch.models import Override

_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  student TEXT NOT NULL,
  filename TEXT NOT NULL,
  source BLOB NOT NULL,
  at TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued',
  claimed_by INTEGER,
  report TEXT
);
CREATE INDEX IF NOT EXISTS by_student ON submissions (student, id);
CREATE INDEX IF NOT EXISTS by_state ON submissions (state, id);
CREATE TABLE IF NOT EXISTS workers (
  id INTEGER PRIMARY KEY,
  pid INTEGER NOT NULL,
  started TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pages (
  submission INTEGER NOT NULL,
  audience TEXT NOT NULL,
  published INTEGER NOT NULL,
  html TEXT NOT NULL,
  PRIMARY KEY (submission, audience, published)
);
CREATE TABLE IF NOT EXISTS sessions (
  id_hash TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  key TEXT NOT NULL,
  csrf TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS learning (
  learner TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (learner, kind)
);
CREATE TABLE IF NOT EXISTS lti_states (
  state TEXT PRIMARY KEY,
  nonce TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lti_links (
  student TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  lineitem TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passbacks (
  student TEXT PRIMARY KEY,
  submission INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  lineitem TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  tries INTEGER NOT NULL DEFAULT 0,
  next_at TEXT NOT NULL DEFAULT '',
  error TEXT
);
CREATE TABLE IF NOT EXISTS overrides (
  student TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  check_id TEXT NOT NULL,
  record TEXT NOT NULL,
  by TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (student, source_sha256, check_id)
);
CREATE TABLE IF NOT EXISTS replaced_overrides (
  student TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  check_id TEXT NOT NULL,
  record TEXT NOT NULL,
  by TEXT NOT NULL,
  at TEXT NOT NULL,
  replaced_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS abandoned (
  submission INTEGER PRIMARY KEY,
  times INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS releases (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at TEXT NOT NULL,
  by TEXT NOT NULL
);
"""


class QueueFull(Exception):
    pass


# A claim abandoned this many times (its worker died while grading it each time) is not queued again: the
# file itself is the likeliest cause, and a worker killed for another reason (the OOM killer) is forgiven twice.
MAX_ABANDONED = 3


def abandoned_report(filename: str) -> str:
    """What the student and the instructor read for a file that was given up on, as a grader error."""
    from grader.report.models import Report, Runtime

    return Report(submission=filename, status="grader_error", score=0.0, max_score=0.0, checks=[],
                  error=(f"the grading process ended while grading this file, {MAX_ABANDONED} times, so it was not "
                         "graded; ask your instructor, who can see it (the rest of your attempts are not affected)"),
                  runtime=Runtime(isolation="none", wall_s=0.0)).model_dump_json()


PageKey = tuple[str, bool]  # (audience, published): who reads a rendered report, and whether grades are out


@dataclass(frozen=True)
class ProcessIdentity:
    """A process as the kernel knows it: its pid and that pid's start time (a reused pid has another)."""

    pid: int
    started: str

    @classmethod
    def of(cls, pid: int) -> ProcessIdentity | None:
        started = _start_time(pid)
        return None if started is None else cls(pid, started)

    def alive(self) -> bool:
        return _start_time(self.pid) == self.started


def _start_time(pid: int) -> str | None:
    """The pid's start time in clock ticks since boot (/proc/PID/stat, field 22); None when no such
    process runs (a zombie has ended: its claims are free)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else fields[19]


@dataclass(frozen=True)
class KeptOverride:
    """The CLI's `Override` record, and who made it when (the instructor's history of changes)."""

    override: Override
    by: str
    at: datetime
    replaced_at: datetime | None = None  # a record an override of the same file and target replaced


@dataclass(frozen=True)
class Submission:
    id: int
    student: str
    filename: str
    at: datetime
    state: str
    report: str | None  # the instructor's Report, as JSON


class CourseStore:
    """One connection per thread; every write is one short transaction."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._conn().executescript(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    def _db(self) -> _Tx:
        return _Tx(self._conn())

    # --- the queue ------------------------------------------------------------------------------

    def enqueue(self, student: str, filename: str, source: bytes, at: datetime, *, limit: int) -> int:
        with self._db() as db:
            queued = db.execute("SELECT count(*) FROM submissions WHERE state != 'graded'").fetchone()[0]
            if queued >= limit:
                raise QueueFull(f"{queued} submissions are waiting")
            cur = db.execute("INSERT INTO submissions (student, filename, source, at) VALUES (?, ?, ?, ?)",
                             (student, filename, source, at.isoformat()))
            return int(cur.lastrowid)

    def register_worker(self, worker: int, identity: ProcessIdentity) -> None:
        """`worker` (a start id) claims from now on for the process `identity` names."""
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO workers VALUES (?, ?, ?)", (worker, identity.pid, identity.started))

    def requeue_abandoned(self, alive: Callable[[ProcessIdentity], bool] | None = None, *,
                          given_up: Callable[[int], None] | None = None) -> int:
        """Claims whose worker's process is gone (or that no registered worker holds) go back in the queue,
        unless one was abandoned `MAX_ABANDONED` times: that one is graded as a grader error (told to
        `given_up`, after the commit). How many moved."""
        alive = alive or ProcessIdentity.alive
        with self._db() as db:
            holders = db.execute("SELECT DISTINCT s.claimed_by, w.pid, w.started FROM submissions s LEFT JOIN "
                                 "workers w ON w.id = s.claimed_by WHERE s.state='claimed'").fetchall()
            dead = [h for h, pid, started in holders if pid is None or not alive(ProcessIdentity(pid, started))]
            moved, gave_up = 0, []
            for holder in dead:
                db.execute("DELETE FROM workers WHERE id=?", (holder,))
                for sid, filename in db.execute("SELECT id, filename FROM submissions WHERE state='claimed' AND "
                                                "claimed_by=?", (holder,)).fetchall():
                    times = db.execute("INSERT INTO abandoned VALUES (?, 1) ON CONFLICT(submission) DO UPDATE SET "
                                       "times=times+1 RETURNING times", (sid,)).fetchone()[0]
                    if times >= MAX_ABANDONED:
                        db.execute("UPDATE submissions SET state='graded', report=?, claimed_by=NULL WHERE id=?",
                                   (abandoned_report(filename), sid))
                        gave_up.append(sid)
                    else:
                        db.execute("UPDATE submissions SET state='queued', claimed_by=NULL WHERE id=?", (sid,))
                    moved += 1
        for sid in gave_up:
            if given_up is not None:
                given_up(sid)
        return moved

    def claim(self, worker: int) -> tuple[int, str, bytes] | None:
        with self._db() as db:
            row = db.execute("UPDATE submissions SET state='claimed', claimed_by=? WHERE id = "
                             "(SELECT id FROM submissions WHERE state='queued' ORDER BY id LIMIT 1) "
                             "RETURNING id, filename, source", (worker,)).fetchone()
        return (int(row[0]), row[1], bytes(row[2])) if row else None

    def finish(self, submission: int, worker: int, report_json: str, pages: dict[PageKey, str] | None = None) -> bool:
        """False when the claim is no longer this worker's (it was re-queued): nothing is written twice.
        `pages`: the report already rendered for some readers, stored in the same transaction."""
        with self._db() as db:
            done = db.execute("UPDATE submissions SET state='graded', report=?, claimed_by=NULL "
                              "WHERE id=? AND state='claimed' AND claimed_by=?",
                              (report_json, submission, worker)).rowcount == 1
            if done and pages:  # not when an override was made for this same file: the page would lack it
                student, source = db.execute("SELECT student, source FROM submissions WHERE id=?",
                                             (submission,)).fetchone()
                if db.execute("SELECT 1 FROM overrides WHERE student=? AND source_sha256=?",
                              (student, hashlib.sha256(bytes(source)).hexdigest())).fetchone():
                    pages = None
            if done:
                for (audience, published), html in (pages or {}).items():
                    db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)",
                               (submission, audience, int(published), html))
            return done

    def page(self, submission: int, key: PageKey) -> str | None:
        """The graded report as `key`'s reader sees it, rendered once (a report never changes once graded)."""
        with self._db() as db:
            row = db.execute("SELECT html FROM pages WHERE submission=? AND audience=? AND published=?",
                             (submission, key[0], int(key[1]))).fetchone()
        return row[0] if row else None

    def keep_page(self, submission: int, key: PageKey, html: str) -> None:
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?)", (submission, key[0], int(key[1]), html))

    def states(self, submissions: list[int]) -> dict[int, str]:
        with self._db() as db:
            rows = db.execute(f"SELECT id, state FROM submissions WHERE id IN ({','.join('?' * len(submissions))})",
                              submissions).fetchall()
        return {int(i): state for i, state in rows}

    def waiting(self) -> int:
        with self._db() as db:
            return db.execute("SELECT count(*) FROM submissions WHERE state != 'graded'").fetchone()[0]

    # --- reading --------------------------------------------------------------------------------

    def history(self, student: str) -> list[Submission]:
        with self._db() as db:
            rows = db.execute("SELECT id, student, filename, at, state, report FROM submissions "
                              "WHERE student=? ORDER BY id", (student,)).fetchall()
        return [_submission(r) for r in rows]

    def get(self, submission: int) -> Submission | None:
        with self._db() as db:
            row = db.execute("SELECT id, student, filename, at, state, report FROM submissions WHERE id=?",
                             (submission,)).fetchone()
        return _submission(row) if row else None

    def source(self, submission: int) -> bytes | None:
        with self._db() as db:
            row = db.execute("SELECT source FROM submissions WHERE id=?", (submission,)).fetchone()
        return bytes(row[0]) if row else None

    def attempts_since(self, student: str, since: datetime) -> list[datetime]:
        with self._db() as db:
            rows = db.execute("SELECT at FROM submissions WHERE student=? ORDER BY id", (student,)).fetchall()
        return [t for t in (datetime.fromisoformat(r[0]) for r in rows) if t > since]

    def count(self, student: str) -> int:
        with self._db() as db:
            return db.execute("SELECT count(*) FROM submissions WHERE student=?", (student,)).fetchone()[0]

    def latest_per_student(self) -> dict[str, Submission]:
        with self._db() as db:
            rows = db.execute("SELECT id, student, filename, at, state, report FROM submissions WHERE id IN "
                              "(SELECT max(id) FROM submissions GROUP BY student)").fetchall()
        return {r[1]: _submission(r) for r in rows}

    # --- the instructor's decisions ----------------------------------------------------------------

    def put_override(self, override: Override, *, by: str, at: datetime) -> None:
        """One override per attempt's file and target (the CLI keys its store on the student and target; a
        course keeps every attempt, so the file's sha256 joins the key). In the same transaction the
        student's rendered pages are dropped (they show the old grade) and their passback is due again."""
        with self._db() as db:
            # The record it replaces stays readable (the history shows it as replaced, with who, when, why).
            db.execute("INSERT INTO replaced_overrides SELECT *, ? FROM overrides WHERE student=? AND "
                       "source_sha256=? AND check_id=?", (at.isoformat(), override.student, override.source_sha256,
                                                           override.check))
            db.execute("INSERT OR REPLACE INTO overrides VALUES (?, ?, ?, ?, ?, ?)",
                       (override.student, override.source_sha256, override.check, override.model_dump_json(), by,
                        at.isoformat()))
            db.execute("DELETE FROM pages WHERE submission IN (SELECT id FROM submissions WHERE student=?)",
                       (override.student,))
            db.execute("UPDATE passbacks SET state='pending', tries=0, next_at='', error=NULL WHERE student=?",
                       (override.student,))

    def overrides(self, student: str | None = None) -> list[KeptOverride]:
        """In the CLI's order (by student, then target: the total before any check)."""
        with self._db() as db:
            rows = db.execute("SELECT record, by, at FROM overrides WHERE ? IS NULL OR student=? "
                              "ORDER BY student, check_id, at", (student, student)).fetchall()
        return [KeptOverride(Override.model_validate_json(r), by, datetime.fromisoformat(at)) for r, by, at in rows]

    def replaced_overrides(self, student: str) -> list[KeptOverride]:
        """The student's overrides that a later one of the same file and target replaced, oldest first."""
        with self._db() as db:
            rows = db.execute("SELECT record, by, at, replaced_at FROM replaced_overrides WHERE student=? "
                              "ORDER BY replaced_at, rowid", (student,)).fetchall()
        return [KeptOverride(Override.model_validate_json(r), by, datetime.fromisoformat(at),
                             datetime.fromisoformat(replaced)) for r, by, at, replaced in rows]

    def release(self, at: datetime, *, by: str) -> None:
        """The instructor released the grades (a course whose release is manual); the first time counts."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO releases VALUES (1, ?, ?)", (at.isoformat(), by))

    def released_at(self) -> datetime | None:
        with self._db() as db:
            row = db.execute("SELECT at FROM releases").fetchone()
        return datetime.fromisoformat(row[0]) if row else None

    # --- sessions -------------------------------------------------------------------------------

    def open_session(self, id_hash: str, role: str, key: str, csrf: str) -> None:
        with self._db() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", (id_hash, role, key, csrf))

    def session(self, id_hash: str) -> tuple[str, str, str] | None:
        with self._db() as db:
            row = db.execute("SELECT role, key, csrf FROM sessions WHERE id_hash=?", (id_hash,)).fetchone()
        return tuple(row) if row else None

    def close_session(self, id_hash: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE id_hash=?", (id_hash,))

    # --- quiz and card progress (grader/serve/learn.py) ------------------------------------------

    def learning(self, learner: str, kind: str) -> str | None:
        """`learner`'s saved progress of one kind ("quiz", "cards"), as the JSON it was kept as."""
        with self._db() as db:
            row = db.execute("SELECT state FROM learning WHERE learner=? AND kind=?", (learner, kind)).fetchone()
        return row[0] if row else None

    def keep_learning(self, learner: str, kind: str, state: str) -> None:
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO learning VALUES (?, ?, ?)", (learner, kind, state))


@dataclass(frozen=True)
class Passback:
    """One student's grade on its way to the LMS: their latest graded attempt, to the LTI user and line
    item their own launch recorded. `pending` until the platform accepts it; `sent` after."""

    student: str
    submission: int
    user_id: str
    lineitem: str
    state: str
    tries: int
    error: str | None


class LtiStore:
    """The LTI half of the store: login states (each taken once, with its nonce), each student's
    launch link, and the passback queue, which is rebuilt from the graded attempts so none is lost."""

    def __init__(self, store: CourseStore):
        self._db = store._db

    def open_state(self, state: str, nonce: str, at: datetime, *, forget_before: datetime) -> None:
        """Keeps a login's state; states too old to be used are dropped, so logins never fill the store."""
        with self._db() as db:
            db.execute("DELETE FROM lti_states WHERE at < ?", (forget_before.isoformat(),))
            db.execute("INSERT INTO lti_states VALUES (?, ?, ?)", (state, nonce, at.isoformat()))

    def take_state(self, state: str, *, since: datetime) -> str | None:
        """The state's nonce, once: the state is gone after; None when unknown, used or older than `since`."""
        with self._db() as db:
            row = db.execute("DELETE FROM lti_states WHERE state=? RETURNING nonce, at", (state,)).fetchone()
        return row[0] if row and datetime.fromisoformat(row[1]) >= since else None

    def link(self, student: str, user_id: str, lineitem: str) -> None:
        with self._db() as db:
            db.execute("INSERT INTO lti_links VALUES (?, ?, ?) ON CONFLICT(student) DO UPDATE SET "
                       "user_id=excluded.user_id, lineitem=excluded.lineitem", (student, user_id, lineitem))

    def linked(self, student: str) -> tuple[str, str] | None:
        """(the LTI user id, the line item) the student's last launch recorded."""
        with self._db() as db:
            row = db.execute("SELECT user_id, lineitem FROM lti_links WHERE student=?", (student,)).fetchone()
        return tuple(row) if row else None

    def queue(self) -> int:
        """Each linked student's latest graded attempt becomes their pending passback unless it already is
        (or was sent); derived from the store, so a crash between grading and queueing loses nothing."""
        with self._db() as db:
            return db.execute(
                "INSERT INTO passbacks (student, submission, user_id, lineitem) "
                "SELECT l.student, s.id, l.user_id, l.lineitem FROM lti_links l JOIN submissions s ON s.id = "
                "(SELECT max(id) FROM submissions WHERE student=l.student AND state='graded') WHERE true "
                "ON CONFLICT(student) DO UPDATE SET submission=excluded.submission, user_id=excluded.user_id, "
                "lineitem=excluded.lineitem, state='pending', tries=0, next_at='', error=NULL "
                "WHERE excluded.submission > passbacks.submission OR excluded.user_id != passbacks.user_id "
                "OR excluded.lineitem != passbacks.lineitem").rowcount

    def due(self, now: datetime) -> list[Passback]:
        with self._db() as db:
            rows = db.execute("SELECT student, submission, user_id, lineitem, state, tries, error FROM passbacks "
                              "WHERE state='pending' AND next_at <= ? ORDER BY student", (now.isoformat(),)).fetchall()
        return [Passback(*r) for r in rows]

    def sent(self, p: Passback) -> bool:
        """Marks `p` sent unless a newer attempt replaced it meanwhile (that one stays pending)."""
        with self._db() as db:
            return db.execute("UPDATE passbacks SET state='sent', error=NULL WHERE student=? AND submission=? "
                              "AND user_id=? AND lineitem=?", (p.student, p.submission, p.user_id, p.lineitem)).rowcount == 1

    def failed(self, p: Passback, error: str, retry_at: datetime) -> None:
        with self._db() as db:
            db.execute("UPDATE passbacks SET tries=tries+1, error=?, next_at=? WHERE student=? AND submission=? "
                       "AND state='pending'", (error, retry_at.isoformat(), p.student, p.submission))

    def held(self, p: Passback, why: str) -> None:
        """Nothing to send for this attempt (the grader failed on it); a newer attempt replaces it."""
        with self._db() as db:
            db.execute("UPDATE passbacks SET state='held', error=? WHERE student=? AND submission=?",
                       (why, p.student, p.submission))

    def passbacks(self) -> dict[str, Passback]:
        with self._db() as db:
            rows = db.execute("SELECT student, submission, user_id, lineitem, state, tries, error FROM passbacks").fetchall()
        return {r[0]: Passback(*r) for r in rows}


def _submission(row) -> Submission:
    return Submission(int(row[0]), row[1], row[2], datetime.fromisoformat(row[3]), row[4], row[5])


class _Tx:
    """`with store._db() as db`: one IMMEDIATE transaction, committed or rolled back."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, *_) -> None:
        self.db.execute("ROLLBACK" if kind else "COMMIT")


def next_allowed(attempts: list[datetime], *, limit: int, window: timedelta) -> datetime | None:
    """When the next attempt is allowed under at most `limit` in any `window`; None: now."""
    if len(attempts) < limit:
        return None
    return sorted(attempts)[-limit] + window
