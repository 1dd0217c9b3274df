"""Issue 19, item 7: a notebook is graded on its definitions only, and an error in it is reported with
its cell and the line in that cell. Same for a script exported with nbconvert (`# In[3]:` marks)."""

from __future__ import annotations

import json
from pathlib import Path

from grader.grade import self_check
from grader.intake import notebook

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text().split('"""', 2)[-1]
TRY_IT = "q = torch.randn(3, 4)\nout, weights = causal_attention(q, q, q[:2])  # does it refuse mismatched shapes?"
# `out` is also a local of causal_attention: a name the definitions use inside, not a global they need.
RUN_IT = "q = torch.randn(1, 3, 4)\nout, weights = causal_attention(q, q, q)\nprint(out)"
BUGGY = REFERENCE.replace("math.sqrt(q.shape[-1])", "q.shape[-1]")


def _ipynb(cells: list[str]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]})


def _exported(cells: list[str]) -> str:
    return "#!/usr/bin/env python\n# coding: utf-8\n\n" + "".join(
        f"# In[{i}]:\n\n\n{cell}\n\n\n" for i, cell in enumerate(cells, 1))


def test_cells_that_run_the_graded_names_are_left_out():
    script = notebook.script_from_cells(["import torch\nimport math", REFERENCE, TRY_IT, RUN_IT]).script
    assert "causal_attention(q, q" not in script and "out, weights =" not in script and "print" not in script
    assert "q = torch.randn" not in script  # only the cells trying the code out needed it
    compile(script, "nb.py", "exec")


def test_constants_the_definitions_read_are_kept_and_those_that_run_them_are_not():
    cells = ["import torch\nimport math", "NEG = float('-inf')\nCHECKED = causal_attention(torch.eye(2), "
             "torch.eye(2), torch.eye(2))", REFERENCE.replace('float("-inf")', "NEG") + "\ndef cached():\n    return CHECKED\n"]
    script = notebook.script_from_cells(cells).script
    assert "NEG = float('-inf')" in script and "CHECKED =" not in script


def test_a_line_of_the_script_is_read_back_as_its_cell_and_line():
    cells = ["import torch", "# constants\n\nD = 4\nprint(D)\nEPS = 1e-9", "def causal_attention(q, k, v):\n"
             "    return v * EPS * D, None"]
    script = notebook.script_from_cells(cells).script
    lines = script.splitlines()
    assert notebook.cell_line(script, lines.index("EPS = 1e-9") + 1) == (2, 5)
    assert notebook.cell_line(script, lines.index("D = 4") + 1) == (2, 3)
    assert notebook.cell_line(script, lines.index("    return v * EPS * D, None") + 1) == (3, 2)
    assert notebook.cell_line("import torch\n", 1) is None  # a plain file keeps its own line numbers


def test_a_correct_notebook_that_tries_itself_out_scores_full(tmp_path, sandbox):
    nb = tmp_path / "attention.ipynb"
    nb.write_text(_ipynb(["import math\nimport torch\nfrom torch import nn\nfrom grader import check", BUGGY,
                          REFERENCE, TRY_IT, RUN_IT, "check(causal_attention)"]))
    report = self_check(nb, sandbox=sandbox)
    assert report.score == report.max_score, [(c.id, c.status) for c in report.checks if c.status != "passed"]


def test_an_error_names_the_cell_and_its_line(tmp_path, sandbox):
    cells = ["import math\nimport torch\nfrom torch import nn", "# the scale\n\nSCALE = 1 / math.sqrt(D_K)",
             REFERENCE.replace("math.sqrt(q.shape[-1])", "(1 / SCALE)")]
    for name, text in (("attention.ipynb", _ipynb(cells)), ("exported.py", _exported(cells))):
        path = tmp_path / name
        path.write_text(text)
        report = self_check(path, sandbox=sandbox)
        said = " ".join(d.model_dump_json() for d in report.diagnoses) + " ".join(
            c.model_dump_json() for c in report.checks)
        assert "NameError in cell 2, line 3" in said, (name, said[:1500])
        assert "at line" not in said.split("NameError", 1)[1][:40]


def test_code_above_the_first_cell_mark_is_a_cell_not_dropped():
    """Found replaying the journey corpus: a script exported from a notebook and edited above its first `# In[ ]:`
    mark lost every definition there and was told causal_attention is missing. nbconvert's own preamble
    (`#!`, `# coding`) is comments only and adds no cell, so real exports keep their cell numbers."""
    edited = "# exported from a notebook\nimport torch\n\ndef causal_attention(q, k, v):\n    return q, k\n\n\n" \
             "# In[2]:\n\n\nq = torch.randn(3, 4)\nprint(causal_attention(q, q, q))\n"
    script = notebook.exported_to_script(edited).script
    assert "def causal_attention" in script and "print(" not in script
    real = "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nimport torch\n\n\n# In[2]:\n\n\n" \
           "def causal_attention(q, k, v):\n    return q, k\n"
    assert notebook.exported_cells(real) == ["import torch", "def causal_attention(q, k, v):\n    return q, k"]
