"""The project as a user installs it: a wheel built from this checkout, in a fresh virtual environment."""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from grader.export.wheel import build_wheel


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def installed(tmp_path_factory, project_wheel) -> Path:
    """A fresh venv holding only the wheel's grader; its dependencies (torch 2.13 CPU and the rest)
    come from this environment's site-packages through a .pth line, so nothing is downloaded or
    rebuilt. The checkout is never on its path: `grader` can only be the installed wheel."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    ours = {sysconfig.get_path("purelib"), *site.getsitepackages()}
    (purelib / "zz_project_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(project_wheel)], check=True, capture_output=True, text=True)
    return venv
