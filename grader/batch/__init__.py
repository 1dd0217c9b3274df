"""A whole class: intake (grader/intake) -> store lookups -> warm sandboxes -> store -> gradebook, summary, JUnit.

run.py runs a class (and `--shard K/N` of one), store.py keeps results in SQLite, merge.py combines a complete
set of shards, overrides.py keeps an instructor's adjustments and reports who moved, gradebook.py and junit.py
write the detailed results, lms.py the files a platform imports, summary.py counts, names.py names files.
"""

from grader.batch.models import CheckTally, ClassSummary, MisconceptionTally, StudentResult
from grader.batch.summary import summarize

__all__ = ["CheckTally", "ClassSummary", "MisconceptionTally", "StudentResult", "summarize"]
