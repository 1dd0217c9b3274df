"""Build the project's wheel from a checkout, without touching the checkout.

pip builds in the source folder (build/, *.egg-info), so the sources are copied to a temporary
folder first; the suite and an export leave the working tree as they found it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.paths import ROOT

# What the wheel is built from; everything else in a checkout (reference/, tests/) stays out.
# setup.py maps the top-level rubrics/ and quiz.json into the package (absent from a student stage).
SOURCES = ("pyproject.toml", "README.md", "grader", "setup.py", "rubrics", "quiz.json")


class WheelError(RuntimeError):
    """The wheel could not be built; the message says why in one line."""


def build_wheel(out_dir: Path, *, root: Path = ROOT) -> Path:
    """Build attention_grader-*.whl into `out_dir` and return its path."""
    if not (root / "pyproject.toml").is_file():
        raise WheelError(f"{root} is not a checkout of the grader (no pyproject.toml); "
                         "build the wheel from a checkout, or pass --wheel PATH")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="grader-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in SOURCES:
            if not (root / name).exists():
                continue
            if (root / name).is_dir():
                shutil.copytree(root / name, src / name,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
            else:
                shutil.copy(root / name, src / name)
        # No build isolation: setuptools is already here, and nothing is downloaded.
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
             "-q", "-w", str(Path(tmp) / "dist"), str(src)],
            capture_output=True, text=True,
        )
        wheels = sorted((Path(tmp) / "dist").glob("attention_grader-*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise WheelError("pip could not build the wheel: " + " | ".join(tail))
        target = out_dir / wheels[0].name
        shutil.copy(wheels[0], target)
    return target
