"""`python -m grader merge DIR... --out DIR`: shard stores combined into one store, gradebook and summary.

Every shard must have been graded with the same rubric and secret (their hashes are compared, the secret
itself is never needed); the merged gradebook then equals the gradebook of one run over the whole class.
"""

from __future__ import annotations

from pathlib import Path

from grader.batch.junit import junit_xml
from grader.batch.models import StudentResult
from grader.batch.run import ClassRun, write_derived, write_outputs
from grader.batch.store import STORE_NAME, Store, absorb, latest_fingerprint
from grader.batch.summary import summarize
from grader.intake.collect import InputError
from grader.paths import atomic_write_text


def merge_stores(dirs: list[Path], out: Path, junit: Path | None = None) -> ClassRun:
    stores = []
    for d in dirs:
        path = d / STORE_NAME if d.is_dir() else d
        if not path.is_file():
            raise InputError(f"{d} holds no {STORE_NAME}: pass the --out folder of each shard")
        fp = latest_fingerprint(path)
        if fp is None:
            raise InputError(f"{path} is not a class-run store with results")
        stores.append((path, fp))
    fingerprints = {fp for _, fp in stores}
    if len(fingerprints) != 1:
        raise InputError("the shards were graded with different rubrics or secrets; they cannot be merged")
    (rubric, secret), = fingerprints
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = Store(out / STORE_NAME, rubric=rubric, secret=secret)
    for path, _ in stores:
        if path.resolve() != (out / STORE_NAME).resolve():
            absorb(target, path)
    results = sorted(target.results(), key=lambda r: (r.student.position, r.student.key))
    skipped = target.skipped()
    target.close()
    for r in results:
        _write_report(out, r)
    run = ClassRun(results, skipped, summarize(results, skipped))
    run.written = write_outputs(out, results, skipped, run.summary)
    if junit:
        atomic_write_text(junit, junit_xml(results))
    return run


def _write_report(out: Path, r: StudentResult) -> None:
    if r.report is not None:
        (out / "reports").mkdir(parents=True, exist_ok=True, mode=0o700)
        write_derived(out / "reports" / f"{r.report_name}.json", r.report.model_dump_json(indent=1).encode())
