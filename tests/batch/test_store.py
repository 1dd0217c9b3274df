"""The store: one lookup and one insert per submission, keyed by source, rubric and secret; several writers at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader.batch.store import Store, rubric_hash, secret_hash
from grader.paths import INSTRUCTOR_RUBRIC
from grader.report.models import Report, Runtime
from grader.rubric import load_rubric

WRITER = """
import sys
from pathlib import Path
from grader.batch.store import Store
from grader.report.models import Report, Runtime
store = Store(Path(sys.argv[1]), rubric="r", secret="s")
for i in range(150):
    store.put(f"{sys.argv[2]}-{i}", Report(submission="x", score=i, max_score=100, checks=[],
                                           runtime=Runtime(isolation="x", wall_s=0)))
"""


def _report(score: float) -> Report:
    return Report(submission="a.py", score=score, max_score=100, checks=[], runtime=Runtime(isolation="x", wall_s=0))


def test_keyed_by_source_rubric_and_secret(tmp_path):
    rubric = load_rubric(INSTRUCTOR_RUBRIC)
    store = Store.open(tmp_path / "s.sqlite3", rubric, "one")
    store.put("abc", _report(5))
    assert store.get("abc").score == 5 and store.get("abd") is None
    assert Store.open(tmp_path / "s.sqlite3", rubric, "two").get("abc") is None  # another secret: other probes
    assert b"one" not in (tmp_path / "s.sqlite3").read_bytes()  # only a hash of the secret is kept
    assert secret_hash("one") != secret_hash("two") and len(rubric_hash(rubric)) == 64
    assert (tmp_path / "s.sqlite3").stat().st_mode & 0o077 == 0


def test_two_processes_write_one_store_at_once(tmp_path):
    path = tmp_path / "shared.sqlite3"
    Store(path, rubric="r", secret="s").close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag]) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    store = Store(Path(path), rubric="r", secret="s")
    assert store.db.execute("SELECT count(*) FROM reports").fetchone()[0] == 300
    assert store.get("a-149").score == 149 and store.get("b-0").score == 0
