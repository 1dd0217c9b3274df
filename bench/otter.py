"""Otter-Grader on the same files, for `cold_start.py --otter`: a throwaway virtual environment
with `otter-grader` from PyPI, one OK-format test (the chapter's worked example, closed-form
weights), `otter generate`, then `otter run` per file, one fresh process each.

Otter checks far less than our grader (one case here against our 41 probe calls); the figure is
the fixed cost of its process, kernel and notebook execution, which a one-file run pays anyway.
"""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

# The chapter's worked example: weights [1,0,0], [1/3,2/3,0], [1/7,2/7,4/7] (closed form).
TEST = '''OK_FORMAT = True

test = {
    "name": "worked_example",
    "points": 1,
    "suites": [{"cases": [{"code": """>>> import math, torch
>>> q = torch.tensor([[1.0, 0.0]] * 3, dtype=torch.float64)
>>> k = torch.tensor([[0.0, 0.0], [math.sqrt(2) * math.log(2), 0.0], [math.sqrt(2) * math.log(4), 0.0]], dtype=torch.float64)
>>> v = torch.tensor([[2.0, 0.0], [0.0, 4.0], [6.0, 2.0]], dtype=torch.float64)
>>> out, w = causal_attention(q, k, v)
>>> bool(torch.allclose(w, torch.tensor([[1, 0, 0], [1/3, 2/3, 0], [1/7, 2/7, 4/7]], dtype=torch.float64)))
True
""", "hidden": False, "locked": False}], "scored": True, "setup": "", "teardown": "", "type": "doctest"}],
}
'''


def prepare(work: Path, files: list[Path], venv: Path | None = None) -> tuple[dict[str, list[str]] | None, str]:
    """Commands timing `otter run` on each file, or None and the reason it cannot be measured."""
    venv = venv or work / "otter-venv"
    otter = venv / "bin" / "otter"
    try:
        if not otter.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "otter-grader"], check=True,
                           capture_output=True, timeout=1200)
            # torch comes from this environment (after Otter's own packages), never downloaded again.
            purelib = next(venv.glob("lib/python*/site-packages"))
            (purelib / "zz_torch_from_grader.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        assignment = work / "otter-assignment"
        (assignment / "tests").mkdir(parents=True, exist_ok=True)
        (assignment / "tests" / "worked_example.py").write_text(TEST)
        subprocess.run([str(otter), "generate"], cwd=assignment, check=True, capture_output=True, timeout=600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, StopIteration) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        tail = detail.decode(errors="replace").strip().splitlines()[-1:] if detail else []
        return None, f"{type(exc).__name__}{': ' + tail[0] if tail else ''}"
    out = work / "otter-out"
    out.mkdir(exist_ok=True)
    zip_path = str(assignment / "autograder.zip")
    return {f"otter run ({f.name})": [str(otter), "run", "-a", zip_path, str(f), "-o", str(out)] for f in files}, ""
