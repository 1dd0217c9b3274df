"""A whole class: expand inputs, grade with resume, then a gradebook and misconception statistics.

With `--out DIR` each report is written the moment it is graded, so an interrupted run loses
nothing: the next run with the same rubric and secret reuses every report whose file is unchanged.
"""

from __future__ import annotations

import csv
import hashlib
import io
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel, ValidationError

from grader.grade import grade_files
from grader.paths import atomic_write_text
from grader.report.models import Report
from grader.report.view import report_filename
from grader.rubric import Rubric


class CheckTally(BaseModel):
    id: str
    title: str
    passed: int
    failed: int
    error: int
    skipped: int


class MisconceptionTally(BaseModel):
    id: str
    title: str
    count: int
    submissions: list[str]


class ClassSummary(BaseModel):
    submissions: int
    mean: float
    median: float
    min: float
    max: float
    max_score: float
    checks: list[CheckTally]
    misconceptions: list[MisconceptionTally]


class Manifest(BaseModel):
    """What a saved report depends on besides the file itself."""

    rubric_sha256: str
    secret_sha256: str
    sources: dict[str, str] = {}  # report file name -> sha256 of the submission it grades


def expand(inputs: Iterable[str | Path]) -> list[Path]:
    """Files as given; folders become every .py file below them, in a stable order."""
    paths: list[Path] = []
    for item in map(Path, inputs):
        paths += sorted(p for p in item.rglob("*.py") if p.is_file()) if item.is_dir() else [item]
    return list(dict.fromkeys(paths))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source_sha(path: Path) -> str:
    try:
        return _sha(path.read_bytes())
    except OSError:
        return "unreadable"


def grade_class(paths: list[Path], *, rubric: Rubric, secret: str | None, out: Path | None,
                on_report: Callable[[Report], None] | None = None) -> list[Report]:
    """Grade in order; with `out`, save each report at once and reuse the unchanged ones."""
    fresh = Manifest(rubric_sha256=_sha(rubric.model_dump_json().encode()), secret_sha256=_sha((secret or "").encode()))
    manifest = _load_manifest(out, fresh) if out else fresh
    names = {p: report_filename(str(p), ".json") for p in paths}
    shas = {p: _source_sha(p) for p in paths}
    cached = {p: _reuse(out, names[p], shas[p], manifest) for p in paths} if out else {}

    def save(report: Report) -> None:
        if out:
            path = Path(report.submission)
            atomic_write_text(out / "reports" / names[path], report.model_dump_json(indent=1))
            manifest.sources[names[path]] = shas[path]
            atomic_write_text(out / "manifest.json", manifest.model_dump_json(indent=1))
        if on_report:
            on_report(report)

    todo = [p for p in paths if cached.get(p) is None]
    graded = iter(grade_files(todo, rubric=rubric, secret=secret, on_report=save))
    reports = [cached.get(p) or next(graded) for p in paths]
    if out:
        write_gradebook(reports, out / "gradebook.csv")
        atomic_write_text(out / "summary.json", summarize(reports).model_dump_json(indent=1))
    return reports


def _load_manifest(out: Path, fresh: Manifest) -> Manifest:
    try:
        old = Manifest.model_validate_json((out / "manifest.json").read_text())
    except (OSError, ValidationError, ValueError):
        return fresh
    same = (old.rubric_sha256, old.secret_sha256) == (fresh.rubric_sha256, fresh.secret_sha256)
    return old if same else fresh  # another rubric or secret: every saved report is stale


def _reuse(out: Path, name: str, sha: str, manifest: Manifest) -> Report | None:
    if manifest.sources.get(name) != sha:
        return None
    try:
        return Report.model_validate_json((out / "reports" / name).read_text())
    except (OSError, ValidationError, ValueError):
        return None


def gradebook_csv(reports: list[Report]) -> str:
    check_ids = list(dict.fromkeys(c.id for r in reports for c in r.checks))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["submission", "score", "max_score", *check_ids, "diagnoses"])
    for r in reports:
        scores = {c.id: c.score for c in r.checks}
        writer.writerow([r.submission, r.score, r.max_score, *(scores.get(i, "") for i in check_ids),
                         " ".join(d.id for d in r.diagnoses)])
    return buf.getvalue()


def write_gradebook(reports: list[Report], path: Path) -> None:
    atomic_write_text(path, gradebook_csv(reports))


def summarize(reports: list[Report]) -> ClassSummary:
    scores = [r.score for r in reports] or [0.0]
    tallies: dict[str, Counter] = {}
    titles: dict[str, str] = {}
    for r in reports:
        for c in r.checks:
            tallies.setdefault(c.id, Counter())[c.status] += 1
            titles[c.id] = c.title
    who: dict[str, list[str]] = {}
    for r in reports:
        for d in r.diagnoses:
            who.setdefault(d.id, []).append(r.submission)
            titles[f"d:{d.id}"] = d.title
    return ClassSummary(
        submissions=len(reports), mean=statistics.fmean(scores), median=statistics.median(scores),
        min=min(scores), max=max(scores), max_score=max((r.max_score for r in reports), default=0.0),
        checks=[CheckTally(id=i, title=titles[i], **{s: t[s] for s in ("passed", "failed", "error", "skipped")})
                for i, t in tallies.items()],
        misconceptions=sorted((MisconceptionTally(id=i, title=titles[f"d:{i}"], count=len(s), submissions=s)
                               for i, s in who.items()), key=lambda m: (-m.count, m.id)),
    )
