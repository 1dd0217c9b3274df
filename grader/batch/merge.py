"""`python -m grader merge DIR... --out DIR`: shard stores combined into one store, gradebook, summary and feedback.

Each shard's store records which part of which class it graded (`ShardRecord`: K of N, a fingerprint of the
whole class's listing, the rubric's hash, the secret's salted hash). A set is merged only when it is one class's
complete split, each part once: a missing part, a part given twice, a part of another split, another class
(another platform's export of it included), another rubric or secret, or a store with no record are all refused,
each named, before anything is written. The merged outputs then equal those of one run over the whole class.
"""

from __future__ import annotations

from pathlib import Path

from grader.batch.junit import junit_xml
from grader.batch.lms import LmsExport, write_lms
from grader.batch.models import StudentResult
from grader.batch.overrides import apply_overrides, changes, changes_csv
from grader.batch.run import ClassRun, feedback_text, write_derived, write_outputs
from grader.batch.store import STORE_NAME, ShardRecord, Store, absorb, latest_fingerprint, shard_records
from grader.batch.summary import summarize
from grader.intake.collect import InputError
from grader.paths import atomic_write_text


def _describe(d: Path, r: ShardRecord) -> str:
    return f"{d} (shard {r.shard}/{r.shards} of {r.students} students from {', '.join(r.platforms) or 'files'})"


def check_shards(shards: list[tuple[Path, list[ShardRecord]]]) -> list[str]:
    """Every reason the set cannot be merged as one class (empty: it can)."""
    problems = [f"{d} records no shard (graded by an older grader): rerun its `grade --shard K/N`"
                for d, records in shards if not records]
    shards = [(d, records) for d, records in shards if records]
    if not shards:
        return problems
    first_dir, first = shards[0][0], shards[0][1][0]
    parts: dict[int, list[Path]] = {}
    for d, records in shards:
        mine = [r for r in records if r.listing == records[0].listing]  # a store's latest class
        r = mine[0]
        if r.listing != first.listing:
            problems.append(f"{_describe(d, r)} graded another class than {_describe(first_dir, first)}")
            continue
        # Every reason, not the first one found (a plain run of another rubric is also not a shard).
        wrong = [f"{d} was graded with another rubric or secret than {first_dir}"] \
            if (r.rubric, r.secret) != (first.rubric, first.secret) else []
        if r.shards != first.shards:
            wrong.append(f"{_describe(d, r)} is part of another split than {_describe(first_dir, first)}")
        if r.published != first.published:
            wrong.append(f"{d} was graded with{'' if r.published else 'out'} --published, {first_dir} "
                         f"with{'' if first.published else 'out'}")
        problems += wrong
        if not wrong:
            for k in sorted({m.shard for m in mine if m.shards == first.shards}):
                parts.setdefault(k, []).append(d)
    if problems:
        return problems
    n = first.shards
    problems += [f"shard {k}/{n} is given twice: {', '.join(map(str, ds))}" for k, ds in sorted(parts.items())
                 if len(ds) > 1]
    missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in parts]
    if missing:
        problems.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of this class "
                        f"{'are' if len(missing) > 1 else 'is'} missing: pass the --out folder of every shard")
    return problems


def rewrite_outputs(out: Path, before: list[StudentResult] | None = None) -> ClassRun:
    """A class run's outputs written again from its own store (after an override), as its next run would; with
    `before` (the class as reported until then), `changes.csv` lists who the override moved."""
    run = merge_stores([out], out, rewrite=True)
    if before is not None:
        run.changes = changes(before, run.results, regraded=False)
        atomic_write_text(out / "changes.csv", changes_csv(run.changes))
    return run


def merge_stores(dirs: list[Path], out: Path, junit: Path | None = None, *, published: bool | None = None,
                 lms: LmsExport | None = None, rewrite: bool = False) -> ClassRun:
    """`published` (None: as the shards were graded) decides whether feedback/ shows the grade. `rewrite`:
    `dirs` is `[out]`, whose outputs are written again from its own store."""
    target_store = (out / STORE_NAME).resolve()
    stores = []
    for d in dirs:
        path = d / STORE_NAME if d.is_dir() else d
        if path.resolve() == target_store and not rewrite:  # it would add the other shards' records to its own
            raise InputError(f"--out {out} is one of the shards being merged; merge into a new folder")
        if not path.is_file():
            raise InputError(f"{d} holds no {STORE_NAME}: pass the --out folder of each shard")
        fp = latest_fingerprint(path)
        if fp is None:
            raise InputError(f"{path} is not a class-run store with results")
        stores.append((path, fp))
    problems = check_shards([(d, shard_records(path)) for d, (path, _) in zip(dirs, stores, strict=True)])
    if problems:
        raise InputError("these stores are not one class's complete set of shards; nothing was merged:\n  "
                         + "\n  ".join(problems))
    (rubric, secret), = {fp for _, fp in stores}
    released = shard_records(stores[0][0])[0].published if published is None else published
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = Store(out / STORE_NAME, rubric=rubric, secret=secret)
    for path, _ in stores:
        if path.resolve() != target_store:
            absorb(target, path)
    results = sorted(target.results(), key=lambda r: (r.student.position, r.student.key))
    skipped = target.skipped()
    stale = apply_overrides(results, target.overrides())
    target.close()
    for r in results:
        _write_report(out, r)
    summary = summarize(results, skipped)
    summary.similar = None  # the stores keep no sources: similar submissions are listed by `grade` alone
    run = ClassRun(results, skipped, summary, stale_overrides=stale)
    lms = lms or shard_records(out / STORE_NAME)[0].lms  # as the shards wrote them
    run.written = write_outputs(out, results, skipped, run.summary, published=released, lms=lms)
    if lms:
        written, run.lms_left_out = write_lms(out, results, lms, published=released,
                                              feedback=lambda r: feedback_text(r, published=released))
        run.written += written
    if junit:
        atomic_write_text(junit, junit_xml(results))
    return run


def _write_report(out: Path, r: StudentResult) -> None:
    if r.report is not None:
        (out / "reports").mkdir(parents=True, exist_ok=True, mode=0o700)
        write_derived(out / "reports" / f"{r.report_name}.json", r.report.model_dump_json(indent=1).encode())
