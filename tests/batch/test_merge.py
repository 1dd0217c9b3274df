"""Done when (issue 20, item 7): merging 2 of 3 shards, a shard twice, a shard with another class's run, or a
plain run with shards exits 2 naming what is missing or foreign; a complete set merges reports, feedback and
the gradebook exactly as one run over the class writes them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.batch.lms import lms_export
from grader.batch.merge import merge_stores
from grader.batch.run import grade_class
from grader.intake.collect import InputError, collect, shard_of
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric
from grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
SECRET = "merge-secret"
CORRECT = (ROOT / "reference" / "attention.py").read_text()


@pytest.fixture(scope="module")
def sandboxes(sandbox_for):
    return [sandbox_for(Limits())]


def canvas_class(root: Path, shards: int = 3) -> Path:
    """Six Canvas students (a correct file and empty ones: two distinct sources), every shard of `shards` non-empty."""
    root.mkdir()
    uids = [uid for uid in range(1000, 1100)]
    chosen = [next(u for u in uids if shard_of(f"canvas:{u}", shards) == k) for k in range(shards)]
    chosen += [u for u in uids if u not in chosen][: 6 - shards]
    for i, uid in enumerate(chosen):
        (root / f"student{i}_{uid}_{500 + i}_attention.py").write_text(CORRECT if i % 2 == 0 else "")
    return root


def moodle_class(root: Path) -> Path:
    root.mkdir()
    for i in range(3):
        (root / f"Student {i}_{7000 + i}_assignsubmission_file_attention.py").write_text("")
    return root


def _run(export: Path, out: Path, sandboxes, shard=None, published=False, lms=None):
    return grade_class(collect([str(export)]), rubric=load_rubric(INSTRUCTOR_RUBRIC), secret=SECRET, out=out,
                       shard=shard, sandboxes=sandboxes, published=published, lms=lms)


def _tree(folder: Path) -> dict[str, str]:
    """File name -> text, without the run's wall time (the one thing two gradings of a file may differ by)."""
    return {p.name: re.sub(r"wall time [0-9.]+ s", "", p.read_text()) for p in sorted(folder.iterdir())}


def test_only_one_classes_complete_set_of_shards_merges(tmp_path, sandboxes):
    export = canvas_class(tmp_path / "canvas")
    whole = tmp_path / "whole"
    canvas = lms_export("canvas", assignment="Attention")
    _run(export, whole, sandboxes, lms=canvas)
    shards = [tmp_path / f"shard{k}" for k in (1, 2, 3)]
    for k, out in enumerate(shards, 1):
        assert _run(export, out, sandboxes, shard=(k, 3), lms=canvas).results  # every shard holds someone
    moodle = tmp_path / "moodle-run"
    _run(moodle_class(tmp_path / "moodle"), moodle, sandboxes)

    refused = {
        "two of three": (shards[:2], r"shard 3/3 of this class is missing"),
        "one twice": ([*shards, shards[1]], r"shard 2/3 is given twice: .*shard2, .*shard2"),
        "another class": ([*shards, moodle], r"moodle-run \(shard 1/1 of 3 students from moodle\) graded another "
                                             r"class than .*shard1 \(shard 1/3 of 6 students from canvas\)"),
        "a whole run with shards": ([whole, *shards[1:]], r"shard2 \(shard 2/3 .*\) is part of another split"),
    }
    for case, (dirs, message) in refused.items():
        with pytest.raises(InputError, match=message):
            merge_stores(dirs, tmp_path / f"refused-{case}")
        assert not (tmp_path / f"refused-{case}").exists(), case  # nothing written

    merged = tmp_path / "merged"
    run = merge_stores(shards, merged)
    assert len(run.results) == 6
    assert (merged / "gradebook.csv").read_text() == (whole / "gradebook.csv").read_text()
    # The import files, as the shards were asked for them: one row per student graded, ids from Canvas's names.
    imported = (merged / "canvas-import.csv").read_text()
    graded = sum(r.status == "graded" for r in run.results)
    assert imported == (whole / "canvas-import.csv").read_text() and imported.count("\n") == 1 + graded >= 4
    names = zipfile.ZipFile(merged / "canvas-feedback.zip").namelist()
    assert len(names) == graded and all(re.fullmatch(r"student\d_10\d\d_50\d_feedback\.md", n) for n in names), names
    reported = sum(r.report is not None for r in run.results)
    assert _tree(merged / "feedback") == _tree(whole / "feedback") and len(_tree(whole / "feedback")) == reported >= 3
    for folder in (whole, merged):  # as docs/instructors.md says: readable by the instructor alone
        assert (folder / "feedback").stat().st_mode & 0o777 == 0o700
    links = re.findall(r"\]\((feedback/[^)]+|reports/[^)]+)\)", (merged / "summary.md").read_text())
    assert len(links) == 2 * reported and all((merged / link).is_file() for link in links)  # no broken link


def test_merge_command_exits_2_and_names_the_missing_shard(tmp_path, sandboxes):
    export = canvas_class(tmp_path / "canvas", shards=2)
    one = tmp_path / "one"
    _run(export, one, sandboxes, shard=(1, 2))
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "grader", "merge", str(one), "--out", str(tmp_path / "m")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and "shard 2/2 of this class is missing" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "m").exists()


def test_merge_into_one_of_its_shards_is_refused_and_leaves_the_shard_as_it_was(tmp_path, sandboxes):
    """Found by a new instructor: `merge shard1 shard2 --out shard1` was accepted, wrote shard 2's records into
    shard 1's store and made every later merge of the two refuse ('shard 2/2 is given twice')."""
    export = canvas_class(tmp_path / "canvas", shards=2)
    one, two = tmp_path / "one", tmp_path / "two"
    _run(export, one, sandboxes, shard=(1, 2))
    _run(export, two, sandboxes, shard=(2, 2))
    before = (one / "gradebook.csv").read_text()
    env = dict(os.environ, NO_COLOR="1")
    into = subprocess.run([sys.executable, "-m", "grader", "merge", str(one), str(two), "--out", str(one)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert into.returncode == 2 and "is one of the shards being merged" in into.stderr, into.stderr
    assert "Traceback" not in into.stderr and (one / "gradebook.csv").read_text() == before
    fine = subprocess.run([sys.executable, "-m", "grader", "merge", str(one), str(two), "--out", str(tmp_path / "m")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert fine.returncode == 0, fine.stderr


def test_a_refusal_names_every_reason_a_store_does_not_belong():
    # Found by an instructor's trial: `merge shard1 results`, results a plain run with another rubric, said only
    # "another rubric or secret", not that it is no shard of this split either.
    from grader.batch.merge import check_shards
    from grader.batch.store import ShardRecord

    shard = ShardRecord(listing="class", shard=1, shards=2, rubric="r1", secret="s", students=4)
    plain = ShardRecord(listing="class", shard=1, shards=1, rubric="r2", secret="s", students=4)
    problems = check_shards([(Path("shard1"), [shard]), (Path("results"), [plain])])
    assert any("results was graded with another rubric or secret than shard1" in p for p in problems), problems
    assert any(p.startswith("results (shard 1/1") and "another split" in p for p in problems), problems
