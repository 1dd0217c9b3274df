"""The student bundle (`release`): a wheel of the student side, a README that installs the CPU torch
first, and the template; no solution, no instructor rubric, no instructor verbs, and the checkout
(its fingerprints above all) left as it was. Installed and used: tests/export/test_student_wheel.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.paths import CATALOGUE, TORCH_CPU_INDEX
from grader.rubric import load_self_check, parse_rubric

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bundle(student_bundle) -> Path:
    return student_bundle  # built once for the session (tests/conftest.py), which checks the fingerprints


def _wheel(bundle: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(next(bundle.glob("attention_grader-*+student-py3-none-any.whl")))


def test_bundle_is_a_wheel_a_readme_and_the_template(bundle):
    names = sorted(p.name for p in bundle.iterdir())
    assert names == ["README.md", "attention.py", "attention_grader-0.1.0+student-py3-none-any.whl"]
    assert "NotImplementedError" in (bundle / "attention.py").read_text()


def test_wheel_holds_the_student_side_and_no_solution(bundle):
    wheel = _wheel(bundle)
    names = set(wheel.namelist())
    for data in ("grader/data/rubrics/self_check.yaml", "grader/data/quiz.json", "grader/data/catalogue.json",
                 "grader/data/student-edition.json", "grader/notebook.py", "grader/watch.py", "grader/cli.py"):
        assert data in names, data
    assert not [n for n in names if n.startswith(("reference/", "tests/", "grader/batch/", "grader/export/"))]
    assert not {"grader/release.py", "grader/demo.py"} & names
    assert {n for n in names if n.endswith(".yaml")} == {"grader/data/rubrics/self_check.yaml"}
    # Generated from the instructor rubric's student view, not a hand-kept copy.
    assert parse_rubric(wheel.read("grader/data/rubrics/self_check.yaml").decode()) == load_self_check()
    assert not [n for n in names if n.endswith(".py") and b"def causal_attention" in wheel.read(n)]
    catalogue = wheel.read("grader/data/catalogue.json")
    assert catalogue == CATALOGUE.read_bytes()  # the fingerprints ship as committed
    assert "zero_fill_mask" in json.loads(catalogue)["fingerprints"] and b"import torch" not in catalogue


def test_readme_installs_the_cpu_torch_first_then_the_wheel(bundle):
    readme = (bundle / "README.md").read_text()
    wheel = next(bundle.glob("*.whl")).name
    torch_line = next(line for line in readme.splitlines() if "--index-url" in line)
    assert torch_line.startswith('pip install "torch>=') and f"--index-url {TORCH_CPU_INDEX}" in torch_line
    assert readme.index(torch_line) < readme.index(f"pip install {wheel}")
    assert "requirements.txt" not in readme and not re.search(r"\{\w+\}", readme)  # every field filled in
    metadata = next(n for n in _wheel(bundle).namelist() if n.endswith(".dist-info/METADATA"))
    assert "pip install" in _wheel(bundle).read(metadata).decode()  # the wheel's description is this README


def test_no_shipped_module_writes_attention_out(bundle):
    """Found by a user: a negative control and the server's warm-up held the chapter's computation
    (mask with -inf, softmax, weights @ v), one edit from the answer. A module that uses a causal
    triangle, masked_fill and softmax together is attention written out; expected values come from
    PyTorch's own attention instead."""
    wheel = _wheel(bundle)
    for name in (n for n in wheel.namelist() if n.endswith(".py")):
        code = wheel.read(name).decode()
        parts = [p for p in (".tril(", "masked_fill(", "softmax(") if p in code]
        assert len(parts) < 3, f"{name} builds attention by hand ({parts})"


def test_installing_the_wheel_never_fetches_torch(bundle):
    """torch is the extra `check`, not a requirement: a student who skips the README's first line
    gets a one-line message from `check` instead of pip downloading the CUDA build."""
    wheel = _wheel(bundle)
    metadata = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    torch = [line for line in requires if re.match(r"Requires-Dist: torch\b", line)]
    assert torch and all('extra == "check"' in line for line in torch), torch
    assert any(line.startswith("Requires-Dist: pydantic") and "extra" not in line for line in requires)


def test_release_verb_writes_the_bundle_and_refuses_a_rubric_without_visible_checks(tmp_path):
    rubric = tmp_path / "hidden.yaml"
    text = (ROOT / "rubrics/causal_attention.yaml").read_text()
    rubric.write_text(re.sub(r"(?m)^(\s*)visibility: \w+$", r"\1visibility: hidden", text))
    proc = subprocess.run([sys.executable, "-m", "grader", "release", "--out", str(tmp_path / "b"), "--rubric",
                           str(rubric)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("grader: ") and "Traceback" not in proc.stderr
