"""A whole class: intake (grader/intake) -> store lookups -> warm sandboxes -> store -> gradebook, summary, JUnit.

run.py runs a class (and `--shard K/N` of one), store.py keeps results in SQLite, merge.py combines shards,
gradebook.py and junit.py write what platforms import, summary.py counts, names.py names files.
"""

from grader.batch.models import CheckTally, ClassSummary, MisconceptionTally, StudentResult
from grader.batch.summary import summarize

__all__ = ["CheckTally", "ClassSummary", "MisconceptionTally", "StudentResult", "summarize"]
