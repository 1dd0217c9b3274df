"""The Gradescope zip, rehearsed: unpack it into a simulated /autograder and run run_autograder with the
installed wheel, for a correct, a buggy and a hostile submission; results validate against the schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from grader.export.gradescope import build_autograder
from grader.schemas import path_of

ROOT = Path(__file__).resolve().parents[2]
SECRET = "rehearsal-secret-5f1d2c"

HOSTILE = '''\
"""Reads the secret and the rubric, forges results.json, then returns the values as the output."""
import json
import os

ROOT = {root!r}
for rel in ("source/secret", "source/rubric.yaml"):
    try:
        with open(os.path.join(ROOT, rel)) as f:
            print("FOUND", rel, f.read()[:200])
    except OSError as err:
        print("refused", rel, err.strerror)
try:
    with open(os.path.join(ROOT, "results", "results.json"), "w") as f:
        json.dump({{"score": 100, "output": "forged", "tests": []}}, f)
except OSError as err:
    print("refused results.json", err.strerror)


def causal_attention(q, k, v):
    return v, v
'''


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory, project_wheel) -> Path:
    out = tmp_path_factory.mktemp("export") / "autograder.zip"
    path, generated = build_autograder(out, secret=SECRET, wheel=project_wheel)
    assert path == out and not generated
    return out


def test_zip_layout_and_pins(autograder_zip, project_wheel):
    zf = zipfile.ZipFile(autograder_zip)
    names = set(zf.namelist())
    assert {"setup.sh", "run_autograder", "constraints.txt", "rubric.yaml", "secret", project_wheel.name} == names
    for script in ("setup.sh", "run_autograder"):
        assert (zf.getinfo(script).external_attr >> 16) & 0o111, f"{script} must be executable"
        subprocess.run(["bash", "-n"], input=zf.read(script), check=True)  # valid shell
    setup = zf.read("setup.sh").decode()
    assert '"torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu' in setup
    assert f'"$SOURCE/{project_wheel.name}"' in setup and '-c "$SOURCE/constraints.txt"' in setup
    pins = zf.read("constraints.txt").decode().split()
    assert "torch==2.13.0" in pins and all("==" in p for p in pins)
    assert zf.read("secret").decode().strip() == SECRET


def _rehearse(autograder_zip: Path, installed: Path, tmp_path: Path, source: str) -> tuple[dict, str]:
    root = tmp_path / "autograder"
    zipfile.ZipFile(autograder_zip).extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    (root / "submission" / "attention.py").write_text(source.format(root=str(root)) if "{root" in source else source)
    env = {"PATH": "/usr/bin:/bin", "GRADER_AUTOGRADER_ROOT": str(root),
           "GRADER_PYTHON": str(installed / "bin" / "python"), "HOME": str(tmp_path)}
    proc = subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = (root / "results" / "results.json").read_text()
    results = json.loads(text)
    jsonschema.validate(results, json.loads(path_of("gradescope").read_text()))
    return results, text


def test_correct_submission_gets_full_marks(autograder_zip, installed, tmp_path):
    results, _ = _rehearse(autograder_zip, installed, tmp_path, (ROOT / "reference" / "attention.py").read_text())
    assert results["score"] == 100 and results["extra_data"]["diagnoses"] == []
    assert {t["visibility"] for t in results["tests"]} >= {"visible", "hidden", "after_due_date"}
    assert all(t["status"] == "passed" for t in results["tests"])


def test_buggy_submission_is_diagnosed_in_extra_data_and_tags(autograder_zip, installed, tmp_path):
    source = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()
    results, _ = _rehearse(autograder_zip, installed, tmp_path, source)
    assert 0 < results["score"] < 100
    assert results["extra_data"]["diagnoses"][0] == "zero_fill_mask"
    failing = [t for t in results["tests"] if t["status"] == "failed"]
    assert failing and all("diagnosis:zero_fill_mask" in t["tags"] for t in failing)
    assert "Fills forbidden scores with 0" in results["output"] or "zero" in results["output"].lower()


def test_hostile_submission_gets_neither_the_secret_nor_its_forged_score(autograder_zip, installed, tmp_path):
    results, text = _rehearse(autograder_zip, installed, tmp_path, HOSTILE)
    assert results["output"] != "forged" and results["tests"]  # the grader's results, written after the run
    assert results["score"] < 100
    if os.geteuid() == 0 and results["extra_data"]["isolation"] == "namespaces+uid":
        assert SECRET not in text and "FOUND" not in text  # the whole root was hidden from the submission
        assert "refused source/secret" in text
    else:  # rlimits-only: the README says a submission can read what the grader can
        pytest.skip(f"isolation is {results['extra_data']['isolation']}: hidden files are not enforced")


def test_export_command(tmp_path, project_wheel):
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SECRET"}
    out = tmp_path / "autograder.zip"
    proc = subprocess.run([sys.executable, "-m", "grader", "export", "gradescope", "--out", str(out),
                           "--wheel", str(project_wheel)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout and "new secret was generated" in proc.stderr
    assert len(zipfile.ZipFile(out).read("secret").strip()) >= 32
    bad = tmp_path / "bad.yaml"
    bad.write_text("assignment_id: x\n")
    proc = subprocess.run([sys.executable, "-m", "grader", "export", "gradescope", "--out", str(tmp_path / "b.zip"),
                           "--rubric", str(bad), "--wheel", str(project_wheel)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith(f"{bad}:") and "Traceback" not in proc.stderr
    assert not (tmp_path / "b.zip").exists()
