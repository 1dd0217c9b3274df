"""`bench/accuracy.py --real DIR --expected FILE`: a folder kept outside the repository, graded as tests/real is.

The folder here is built in tmp_path from two committed twins, with an expectations file that is
right about one and deliberately wrong about the other, so the agreement printed must be 1 of 2
and the disagreement must be named. Bad folders and bad expectations files get one clear line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "accuracy.py"
TWINS = ROOT / "tests" / "real"

RIGHT_AND_WRONG = """\
cs336_iamgroot42:
  band: [100, 100]
  ids: []
  first: null
  why: correct
timm_vit_attention:
  band: [100, 100]
  ids: []
  first: null
  why: deliberately wrong, so one disagreement must be reported
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_a_local_folder_is_graded_against_its_expectations(tmp_path):
    folder = tmp_path / "public"
    folder.mkdir()
    for stem in ("cs336_iamgroot42", "timm_vit_attention", "nanogpt_manual"):
        shutil.copy(TWINS / f"{stem}.py", folder)
    expected = tmp_path / "mine.yaml"
    expected.write_text(RIGHT_AND_WRONG)

    done = _run("--real", str(folder), "--expected", str(expected))

    assert done.returncode == 0, done.stderr
    assert f"Real code in {folder}: 2 files" in done.stdout
    assert "score in the instructor's band: 1/2" in done.stdout
    assert "both (graded as a careful instructor would): 1/2" in done.stdout
    assert "timm_vit_attention: score 50 outside [100, 100]" in done.stdout
    assert "no expectation in mine.yaml for nanogpt_manual.py, not graded" in done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        ["cs336_iamgroot42.py", "timm_vit_attention.py", "nanogpt_manual.py", "mine.yaml"])  # wrote nothing


@pytest.mark.parametrize(("entry", "says"), [
    ("band: [90, 10]\n  ids: []\n  first: null\n  why: x", "band [90.0, 10.0] is not [low, high] within 0..100"),
    ("band: [0, 50]\n  ids: [no_such_mistake]\n  first: null\n  why: x", "unknown misconception ids ['no_such_mistake']"),
    ("band: [0, 50]\n  ids: [no_mask]\n  first: wrong_scale\n  why: x", "first 'wrong_scale' is not among ids"),
    ("ids: []\n  first: null\n  why: x", "band: Field required"),
])
def test_a_bad_expectation_is_named_with_its_entry(tmp_path, verdicts, entry, says):
    path = tmp_path / "expected.yaml"
    path.write_text(f"some_file:\n  {entry}\n")
    with pytest.raises(verdicts.ManifestError) as caught:
        verdicts.load_manifest(path)
    assert f"{path}: entry 'some_file': " in str(caught.value) and says in str(caught.value), str(caught.value)


def test_the_script_says_a_bad_expectation_in_one_line(tmp_path):
    (tmp_path / "expected.yaml").write_text("some_file:\n  band: [90, 10]\n  ids: []\n  first: null\n  why: x\n")
    done = _run("--real", str(tmp_path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines() == [
        f"accuracy: {tmp_path / 'expected.yaml'}: entry 'some_file': "
        "band [90.0, 10.0] is not [low, high] within 0..100"], done.stderr


@pytest.mark.parametrize(("setup", "says"), [
    (lambda d: None, "not a folder"),
    (lambda d: d.mkdir(), "cannot read expectations"),
    (lambda d: (d.mkdir(), (d / "expected.yaml").write_text("- a list\n")), "expected a mapping"),
    (lambda d: (d.mkdir(), (d / "expected.yaml").write_text(RIGHT_AND_WRONG)), "nothing to grade"),
])
def test_a_bad_folder_gets_one_clear_line(tmp_path, setup, says):
    folder = tmp_path / "public"
    setup(folder)
    done = _run("--real", str(folder))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert says in done.stderr, done.stderr


def test_the_committed_expectations_pass_the_same_validation(verdicts):
    assert sorted(verdicts.load_manifest()) == sorted(p.stem for p in verdicts.real_files())
