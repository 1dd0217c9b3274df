"""A notebook exported to a script, with its `from grader import check; check(SingleHead)` cell,
grades the same as the notebook and as the plain file: the cells that try the code out are not run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORRECT = (ROOT / "tests" / "variants" / "einsum_triu.py").read_text()
CELLS = [CORRECT, "from grader import check\ncheck(SingleHead)", "out, w = SingleHead(6, 2)(torch.randn(2, 4, 6))\nw"]


def exported(cells: list[str]) -> str:
    """What `jupyter nbconvert --to script` writes."""
    body = "".join(f"# In[{i}]:\n\n\n{cell}\n\n\n" for i, cell in enumerate(cells, 1))
    return "#!/usr/bin/env python\n# coding: utf-8\n\n" + body


def notebook(cells: list[str]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": cell} for cell in cells]})


def _grader(tmp: Path, *args: str) -> dict | list:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADER_DATA_DIR": str(tmp / "data"), "GRADER_SECRET": "s"}
    done = subprocess.run([sys.executable, "-m", "grader", *args, "--json"], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_exported_notebook_grades_like_the_notebook(tmp_path):
    (tmp_path / "plain.py").write_text(CORRECT)
    (tmp_path / "exported.py").write_text(exported(CELLS))
    (tmp_path / "attention.ipynb").write_text(notebook(CELLS))
    plain = _grader(tmp_path, "check", "plain.py")
    assert plain["score"] == plain["max_score"]
    for name in ("exported.py", "attention.ipynb"):
        report = _grader(tmp_path, "check", name)
        assert report["submission"] == name
        assert [(c["id"], c["status"], c["score"]) for c in report["checks"]] == \
            [(c["id"], c["status"], c["score"]) for c in plain["checks"]], name
    graded = _grader(tmp_path, "grade", "exported.py")  # the class run's intake converts it the same way
    assert graded[0]["score"] == graded[0]["max_score"]


def test_a_plain_file_is_graded_as_written(tmp_path):
    """Only notebooks are converted: a script's own top-level code still runs (and may fail)."""
    (tmp_path / "a.py").write_text(CORRECT + "\nraise SystemExit(3)\n")
    report = _grader(tmp_path, "check", "a.py")
    assert report["score"] == 0
