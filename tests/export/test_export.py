"""What leaves the instructor's machine, tried as a user would: the wheel installed into a fresh virtual
environment and used from another folder, and the Gradescope zip rehearsed in a simulated /autograder
with that installed wheel, for a correct, a buggy and a hostile submission; results validate against
the generated Gradescope schema.
"""

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
from grader.export.wheel import build_wheel
from grader.schemas import path_of

ROOT = Path(__file__).resolve().parents[2]
SECRET = "rehearsal-secret-5f1d2c"


@pytest.fixture(scope="module")
def project_wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel_venv, project_wheel) -> Path:
    """A fresh venv holding only the wheel's grader (see wheel_venv): `grader` can only be the installed wheel."""
    return wheel_venv(project_wheel)


def test_wheel_carries_the_data_and_no_solution(project_wheel):
    names = set(zipfile.ZipFile(project_wheel).namelist())
    for data in ("grader/data/rubrics/causal_attention.yaml", "grader/data/quiz.json",
                 "grader/data/catalogue.json", "grader/schemas/report.schema.json",
                 "grader/schemas/rubric.schema.json"):
        assert data in names, data
    assert not [n for n in names if n.startswith(("reference/", "tests/"))]


def test_installed_wheel_works_from_another_directory(installed, installed_grader, tmp_path):
    grader = installed_grader(installed)
    grader.assert_imported_from_the_venv(tmp_path)
    grader.assert_check_diagnoses(tmp_path)
    grader.assert_quiz_and_cards(tmp_path)
    rubric = grader.run(tmp_path, "rubric", "validate", str(ROOT / "rubrics/causal_attention.yaml"))
    assert rubric.returncode == 0 and ": ok:" in rubric.stdout, rubric.stderr
    assert not (tmp_path / "build").exists() and os.listdir(tmp_path)



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
    assert "torch==2.13.0" in pins and any(p.startswith("jinja2==") for p in pins) and all("==" in p for p in pins)
    assert zf.read("secret").decode().strip() == SECRET


def _autograder_root(autograder_zip: Path, tmp_path: Path) -> Path:
    """Gradescope's /autograder as a folder: the zip unpacked into source/, an empty submission/ and results/."""
    root = tmp_path / "autograder"
    zipfile.ZipFile(autograder_zip).extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return root


def _rehearse(autograder_zip: Path, installed: Path, tmp_path: Path, source: str | bytes | None,
              name: str = "attention.py") -> tuple[dict, str]:
    root = _autograder_root(autograder_zip, tmp_path)
    if isinstance(source, bytes):
        (root / "submission" / name).write_bytes(source)
    elif source is not None:
        (root / "submission" / name).write_text(source.format(root=str(root)) if "{root" in source else source)
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


def test_a_notebook_is_graded_as_its_code_cells(autograder_zip, installed, tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": (ROOT / "reference" / "attention.py").read_text().splitlines(keepends=True)},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["from grader import check\n", "check(causal_attention)\n"]}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    results, _ = _rehearse(autograder_zip, installed, tmp_path, notebook, name="attention.ipynb")
    assert results["score"] == 100 and results["extra_data"]["submission"] == "attention.ipynb"


def test_a_zip_with_a_helper_module_is_graded_as_a_class_run_would(autograder_zip, installed, tmp_path):
    upload = tmp_path / "hw3.zip"
    with zipfile.ZipFile(upload, "w") as z:  # Gradescope keeps an uploaded zip as it is
        z.writestr("hw3/attention.py", "from attention_core import SingleHead, causal_attention  # noqa: F401\n")
        z.writestr("hw3/attention_core.py", (ROOT / "reference" / "attention.py").read_text())
        z.writestr("hw3/__MACOSX/._attention.py", b"\x00")
        z.writestr("hw3/README.md", "my notes")
    results, _ = _rehearse(autograder_zip, installed, tmp_path, upload.read_bytes(), name="hw3.zip")
    assert results["score"] == 100 and results["extra_data"]["submission"] == "hw3.zip/hw3/attention.py"


@pytest.mark.parametrize("layout", ["folder", "notebook", "zip", "nothing"])
def test_find_submission_reads_uploads_as_intake_does(tmp_path, layout):
    """What Gradescope's submission/ may hold, without a sandbox: the source intake makes of it."""
    from grader.export.autograder import find_submission

    folder = tmp_path / "submission"
    (folder / "src").mkdir(parents=True)
    reference = (ROOT / "reference" / "attention.py").read_text()
    if layout == "folder":  # uploaded as a folder: the solution beside the helper module it imports
        (folder / "src" / "attention.py").write_text("from softmax_bits import causal_attention  # noqa\n")
        (folder / "src" / "softmax_bits.py").write_text(reference)
        (folder / "scratch.py").write_text("print('tinkering')\n")
    elif layout == "notebook":
        cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                  "source": reference.splitlines(keepends=True)}]
        (folder / "Attention.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                            "nbformat_minor": 5}))
    elif layout == "zip":
        with zipfile.ZipFile(folder / "smithjohn_4821_99817_hw.zip", "w") as z:  # a platform-looking name
            z.writestr("attention.py", reference)
    else:
        (folder / "notes.txt").write_text("forgot the code")
    source, found, why = find_submission(folder, ("causal_attention", "SingleHead"))
    if layout == "nothing":
        assert source is None and found == "" and "upload attention.py" in why and "notes.txt" in why
        return
    assert source is not None and b"def causal_attention" in source and why == ""
    assert found == {"folder": "src/attention.py", "notebook": "Attention.ipynb",
                     "zip": "smithjohn_4821_99817_hw.zip/attention.py"}[layout]


def test_an_empty_submission_gets_zero_and_a_reason(autograder_zip, installed, tmp_path):
    results, _ = _rehearse(autograder_zip, installed, tmp_path, None)
    assert results["score"] == 0 and results["tests"] == [] and "upload attention.py" in results["output"]


def test_buggy_submission_is_diagnosed_in_extra_data_and_tags(autograder_zip, installed, tmp_path):
    source = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()
    results, _ = _rehearse(autograder_zip, installed, tmp_path, source)
    assert 0 < results["score"] < 100
    assert results["extra_data"]["diagnoses"][0] == "zero_fill_mask"
    failing = [t for t in results["tests"] if t["status"] == "failed"]
    assert failing and all("diagnosis:zero_fill_mask" in t["tags"] for t in failing)
    assert "Fills forbidden scores with 0" in results["output"] or "zero" in results["output"].lower()


def _leaked(text: str) -> bool:
    """Whether the hostile submission read the secret or the rubric (its prints land in extra_data)."""
    return SECRET in text or "FOUND" in text


def test_hostile_submission_gets_neither_the_secret_nor_its_forged_score(autograder_zip, installed, tmp_path,
                                                                        sandbox):
    results, text = _rehearse(autograder_zip, installed, tmp_path, HOSTILE)
    assert results["output"] != "forged" and results["tests"]  # the grader's results, written after the run
    assert results["score"] < 100
    if sandbox.isolation != "namespaces+uid":  # this machine cannot hide files from a submission at all
        pytest.skip(f"this machine's sandbox is {sandbox.isolation}: hidden files are not enforced here")
    # Installed from the wheel into a fresh venv (under pytest's /tmp, its interpreter under /root), the
    # autograder must isolate as well as this checkout does: a weaker level here is a bug, not a skip.
    assert results["extra_data"]["isolation"] == "namespaces+uid"
    assert not _leaked(text) and "refused source/secret" in text  # the whole root was hidden


def test_the_hostile_rehearsal_catches_a_leak(autograder_zip, tmp_path, monkeypatch):
    """Negative control: the same run with isolation switched off (rlimits-only, as root) leaks the
    secret, and the assertions above see it."""
    import functools

    import grader.sandbox
    from grader.export import autograder

    root = _autograder_root(autograder_zip, tmp_path)
    (root / "submission" / "attention.py").write_text(HOSTILE.format(root=str(root)))
    monkeypatch.setattr(grader.sandbox, "Sandbox", functools.partial(grader.sandbox.Sandbox, isolate=False))
    assert autograder.run(root) == 0
    text = (root / "results" / "results.json").read_text()
    assert json.loads(text)["extra_data"]["isolation"] == "rlimits-only"
    assert _leaked(text) and "refused source/secret" not in text


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


def test_the_zip_that_holds_the_secret_is_its_owners_alone(tmp_path):
    wheel = tmp_path / "attention_grader-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:  # the smallest wheel the export reads: its metadata
        zf.writestr("attention_grader-0.1.0.dist-info/METADATA", "Name: attention-grader\nRequires-Dist: pyyaml\n")
    out, _ = build_autograder(tmp_path / "autograder.zip", secret=SECRET, wheel=wheel)
    assert out.stat().st_mode & 0o777 == 0o600
    assert zipfile.ZipFile(out).read("secret").decode().strip() == SECRET


# Runs in a fresh interpreter: the seed may only be planted by a process whose state is known clean.
# Every way the sandbox can start a second interpreter (Sandbox._popen) is recorded before the entry
# point runs; the seed's fork of this process never passes there.
_COUNT_INTERPRETERS = """
import sys
from pathlib import Path
from grader.export import autograder
from grader.sandbox import client
started = []
popen = client.Sandbox._popen
client.Sandbox._popen = staticmethod(lambda *a: started.append(1) or popen(*a))
root = Path(sys.argv[1])
code = autograder.main([str(root)]) if sys.argv[2] == "main" else autograder.run(root)
print("interpreters", len(started), "code", code)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="without root the sandbox enters a user namespace, which needs a "
                    "fresh interpreter whatever the entry point (Gradescope runs as root)")
def test_run_autograder_forks_its_sandbox_like_grade_file(tmp_path):
    """`run_autograder`'s entry point plants the seed as `grade FILE` does: its sandbox is a fork of the
    process that already imported torch, not a second interpreter. Negative control: the same grading
    without the entry point (autograder.run alone) starts one."""
    from grader.paths import INSTRUCTOR_RUBRIC

    for entry, expected in (("main", 0), ("run", 1)):
        root = tmp_path / entry
        for folder in ("source", "submission", "results"):
            (root / folder).mkdir(parents=True)
        (root / "source" / "rubric.yaml").write_text(INSTRUCTOR_RUBRIC.read_text(encoding="utf-8"))
        (root / "source" / "secret").write_text(SECRET + "\n")
        (root / "submission" / "attention.py").write_text((ROOT / "reference" / "attention.py").read_text())
        proc = subprocess.run([sys.executable, "-c", _COUNT_INTERPRETERS, str(root), entry], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
        assert proc.returncode == 0, proc.stderr
        assert f"interpreters {expected} code 0" in proc.stdout, (entry, proc.stdout, proc.stderr)
        results = json.loads((root / "results" / "results.json").read_text())
        assert results["score"] == 100 and results["extra_data"]["isolation"] == "namespaces+uid"
