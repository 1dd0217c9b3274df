"""The student bundle carries no solution, yet its self-check still diagnoses from shipped numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from support.corpora import MUTANTS, mutant_id

from grader.release import build_bundle
from grader.rubric import load_self_check, parse_rubric


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("release") / "bundle")


def test_bundle_holds_no_solution(bundle):
    files = [p for p in bundle.rglob("*") if p.is_file()]
    names = {p.relative_to(bundle).as_posix() for p in files}
    assert not any(n.startswith(("reference/", "tests/")) for n in names)
    rubrics = {n for n in names if n.endswith(".yaml")}
    assert rubrics == {"grader/data/rubrics/self_check.yaml"}  # never the instructor rubric
    # Generated from the instructor rubric's student view, not a hand-kept copy.
    assert parse_rubric((bundle / "grader/data/rubrics/self_check.yaml").read_text()) == load_self_check()
    defining = [n for n in names if n.endswith(".py") and "def causal_attention" in (bundle / n).read_text()]
    assert defining == ["attention.py"]  # the stub, nothing else
    assert "NotImplementedError" in (bundle / "attention.py").read_text()
    catalogue = json.loads((bundle / "grader/data/catalogue.json").read_text())
    assert "zero_fill_mask" in catalogue["fingerprints"]
    assert "import torch" not in (bundle / "grader/data/catalogue.json").read_text()


def test_bundle_self_check_diagnoses_without_the_catalogue_code(bundle, tmp_path):
    zero_fill = next(p for p in MUTANTS if mutant_id(p) == "zero_fill_mask")
    shutil.copy(zero_fill, bundle / "mine.py")
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(tmp_path)}
    where = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"], cwd=bundle,
                           capture_output=True, text=True, env=env)
    assert where.stdout.strip().startswith(str(bundle))
    proc = subprocess.run([sys.executable, "-m", "grader", "check", "mine.py", "--json"], cwd=bundle,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["diagnoses"][0]["id"] == "zero_fill_mask"


def test_catalogue_in_the_bundle_refuses_and_keeps_the_fingerprints(bundle, tmp_path):
    data = bundle / "grader/data/catalogue.json"
    before = data.read_bytes()
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "grader", "catalogue"], cwd=bundle, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 2 and "mutants" in proc.stderr and "Traceback" not in proc.stderr
    assert data.read_bytes() == before
