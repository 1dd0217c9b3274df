"""The class run's store: SQLite, one row per graded source, one per student, one per skipped path, one per
run (which part of which class it graded, see ShardRecord) and one per instructor override.

Reports are keyed by the graded source's sha256, the rubric's hash (with the grader's version) and a
hash of the secret, so a rerun, a resumed run after SIGKILL or another shard finds every report it can
reuse with one lookup, and saving one is one INSERT (no manifest rewritten). WAL and a busy timeout let
several runs or shards write the same store at once; each write is its own transaction, so a kill loses
at most the report being written.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from grader.batch.lms import LmsExport
from grader.batch.models import Override, StudentResult
from grader.intake.models import Skipped, Student
from grader.report.models import Report
from grader.rubric import Rubric

STORE_NAME = "store.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reports (
    source_sha256 TEXT NOT NULL, rubric_sha256 TEXT NOT NULL, secret_sha256 TEXT NOT NULL,
    report TEXT NOT NULL, graded_at REAL NOT NULL,
    PRIMARY KEY (source_sha256, rubric_sha256, secret_sha256));
CREATE TABLE IF NOT EXISTS students (
    key TEXT PRIMARY KEY, student TEXT NOT NULL, rubric_sha256 TEXT NOT NULL, secret_sha256 TEXT NOT NULL,
    status TEXT NOT NULL, report_name TEXT NOT NULL, error TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    listing TEXT NOT NULL, shard INTEGER NOT NULL, shards INTEGER NOT NULL, rubric_sha256 TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL, record TEXT NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (listing, shard, shards, rubric_sha256, secret_sha256));
CREATE TABLE IF NOT EXISTS overrides (
    student TEXT NOT NULL, check_id TEXT NOT NULL, record TEXT NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (student, check_id));
"""


class ShardRecord(BaseModel):
    """What a run's store says it holds, so `merge` can tell a complete set of shards from a partial,
    duplicated or foreign one without the secret: the part of the class (K of N), the whole class's listing,
    the rubric's and the secret's hashes, and whether the results were released."""

    model_config = ConfigDict(extra="forbid")

    listing: str  # class_listing() of every student of the class, before the split into shards
    shard: int = 1
    shards: int = 1
    rubric: str
    secret: str
    students: int = 0  # in the whole class
    platforms: list[str] = []  # where the students came from (canvas, moodle, ...), for the messages
    published: bool = False
    lms: LmsExport | None = None  # the import files it wrote, so a merge or an override rewrites them alike


def class_listing(keys: list[str]) -> str:
    """A fingerprint of who is in the class: every shard of one class computes the same, another class
    (or the same class exported by another platform, whose keys differ) another."""
    return hashlib.sha256("\0".join(sorted(keys)).encode("utf-8", "surrogateescape")).hexdigest()


def _version() -> str:
    try:
        return metadata.version("attention-grader")
    except metadata.PackageNotFoundError:
        return "unknown"


def rubric_hash(rubric: Rubric) -> str:
    return hashlib.sha256(f"{_version()}\0{rubric.model_dump_json()}".encode()).hexdigest()


def secret_hash(secret: str | None) -> str:
    """Never the secret itself: only a salted hash of it is written to disk."""
    return hashlib.sha256(b"attention-grader store\0" + (secret or "").encode()).hexdigest()


class Store:
    def __init__(self, path: Path | None, *, rubric: str, secret: str):
        self.path = path
        self.rubric, self.secret = rubric, secret
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            os.close(fd)
        self.db = sqlite3.connect(str(path) if path else ":memory:", timeout=60, isolation_level=None,
                                  check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout = 60000")
        if path is not None:
            self._wal()
            self.db.execute("PRAGMA synchronous = NORMAL")  # durable across a killed process; WAL keeps it whole
        self.db.executescript(_SCHEMA)

    def _wal(self) -> None:
        """Switching to WAL needs a moment alone with the file, and SQLite answers "locked" at once,
        without its busy handler, when a second run opens the store in that moment: wait and retry."""
        for attempt in range(600):
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if attempt == 599:
                    raise
                time.sleep(0.05)

    @classmethod
    def open(cls, path: Path | None, rubric: Rubric, secret: str | None) -> Store:
        return cls(path, rubric=rubric_hash(rubric), secret=secret_hash(secret))

    def close(self) -> None:
        self.db.close()

    # -- reports, by content ---------------------------------------------------------------
    def get(self, source_sha256: str) -> Report | None:
        row = self.db.execute("SELECT report FROM reports WHERE source_sha256=? AND rubric_sha256=? AND "
                              "secret_sha256=?", (source_sha256, self.rubric, self.secret)).fetchone()
        return Report.model_validate_json(row[0]) if row else None

    def put(self, source_sha256: str, report: Report) -> None:
        self.put_json(source_sha256, report.model_dump_json())

    def put_json(self, source_sha256: str, report: str) -> None:
        """`put` for a report already written as JSON (`Report.model_dump_json()`)."""
        self.db.execute("INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?)",
                        (source_sha256, self.rubric, self.secret, report, time.time()))

    # -- the class ---------------------------------------------------------------------------
    def record(self, results: list[StudentResult], skipped: list[Skipped]) -> None:
        """Students (without their reports: those live once per source) and skipped paths, in one transaction."""
        now = time.time()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "INSERT OR REPLACE INTO students VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.student.key, r.student.model_dump_json(), self.rubric, self.secret, r.status, r.report_name,
                  r.error, now) for r in results])
            self.db.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?)",
                                [(s.path, s.reason, now) for s in skipped])

    def record_run(self, record: ShardRecord) -> None:
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (record.listing, record.shard, record.shards, record.rubric, record.secret,
                         record.model_dump_json(), time.time()))

    def put_override(self, override: Override) -> None:
        self.db.execute("INSERT OR REPLACE INTO overrides VALUES (?, ?, ?, ?)",
                        (override.student, override.check, override.model_dump_json(), time.time()))

    def overrides(self) -> list[Override]:
        return [Override.model_validate_json(r) for r, in
                self.db.execute("SELECT record FROM overrides ORDER BY student, check_id")]

    def latest(self) -> tuple[str, str] | None:
        """The (rubric, secret) hashes of the last run recorded here."""
        return _latest(self.db)

    def results(self, fingerprint: tuple[str, str] | None = None) -> list[StudentResult]:
        """Every student this store has seen with this rubric and secret (or another run's `fingerprint`),
        with their reports."""
        rubric, secret = fingerprint or (self.rubric, self.secret)
        rows = self.db.execute("SELECT s.student, s.status, s.report_name, s.error, r.report FROM students s "
                               "LEFT JOIN reports r ON r.source_sha256 = json_extract(s.student, '$.source_sha256') "
                               "AND r.rubric_sha256 = s.rubric_sha256 AND r.secret_sha256 = s.secret_sha256 "
                               "WHERE s.rubric_sha256=? AND s.secret_sha256=?", (rubric, secret))
        out = []
        for student, status, name, error, report in rows:
            s = Student.model_validate_json(student)
            rep = Report.model_validate_json(report).model_copy(update={"submission": s.submission}) if report else None
            if status == "graded" and rep is None:
                status, error = "grader_error", "the store has no report for this submission"
            out.append(StudentResult(student=s, status=status, report=rep, report_name=name, error=error))
        return out

    def skipped(self) -> list[Skipped]:
        return [Skipped(path=p, reason=r) for p, r in self.db.execute("SELECT path, reason FROM skipped ORDER BY path")]

    def fingerprints(self) -> set[tuple[str, str]]:
        return set(self.db.execute("SELECT DISTINCT rubric_sha256, secret_sha256 FROM students"))


def _latest(db: sqlite3.Connection) -> tuple[str, str] | None:
    row = db.execute("SELECT rubric_sha256, secret_sha256 FROM students ORDER BY updated DESC LIMIT 1").fetchone()
    return tuple(row) if row else None


def latest_fingerprint(path: Path) -> tuple[str, str] | None:
    """The (rubric, secret) hashes of the most recent run recorded in a store, without knowing either."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        return _latest(db)
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()


def shard_records(path: Path) -> list[ShardRecord]:
    """The runs a store recorded under its latest rubric and secret, newest first ([] for a store written
    before shards were recorded)."""
    fingerprint = latest_fingerprint(path)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        rows = db.execute("SELECT record FROM runs WHERE rubric_sha256=? AND secret_sha256=? ORDER BY updated DESC",
                          fingerprint or ("", "")).fetchall()
    except sqlite3.DatabaseError:
        return []
    finally:
        db.close()
    return [ShardRecord.model_validate_json(r) for r, in rows]


def absorb(target: Store, source: Path) -> None:
    """Copy another store's reports, students, skipped paths, runs and overrides into `target` (one transaction)."""
    target.db.execute("ATTACH DATABASE ? AS other", (f"file:{source}?mode=ro",))
    try:
        with target.db:
            target.db.execute("BEGIN IMMEDIATE")
            for table in ("reports", "students", "skipped", "runs", "overrides"):
                target.db.execute(f"INSERT OR REPLACE INTO main.{table} SELECT * FROM other.{table}")
    finally:
        target.db.execute("DETACH DATABASE other")
