"""The project as a user installs it: a wheel in a fresh virtual environment, used from another folder.
The instructor's wheel (test_export.py) and the student's (test_student_wheel.py) install the same way."""

from __future__ import annotations

import json
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TORCH_DISTS = frozenset({"torch", "functorch", "torchgen"})  # what `pip install torch` puts in site-packages


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory) -> Callable[..., Path]:
    """`wheel_venv(wheel, torch=True)`: a fresh venv holding only `wheel`'s grader.

    Its dependencies come from this environment's site-packages through a .pth line, so nothing is
    downloaded or rebuilt, as for a student who installed the CPU torch first. With `torch=False` the
    .pth names a folder of links to every dependency but torch, as on a machine without torch. The
    checkout is never on its path. Skips (with the reason) where a venv cannot be built here."""

    def install(wheel: Path, *, torch: bool = True) -> Path:
        venv = tmp_path_factory.mktemp("venv") / "env"
        ours = sorted({sysconfig.get_path("purelib"), *site.getsitepackages()})
        try:
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                           capture_output=True, text=True)
            python = venv / "bin" / "python"
            purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                          check=True, capture_output=True, text=True).stdout.strip())
            if not torch:
                ours = [str(_without_torch(ours, venv.parent / "deps"))]
            (purelib / "zz_project_dependencies.pth").write_text("\n".join(ours) + "\n")
            subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                            "--no-index", "-q", str(wheel)], check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as err:
            detail = getattr(err, "stderr", None) or str(err)
            pytest.skip(f"cannot build a virtual environment here: {detail.strip().splitlines()[-1:]}")
        return venv

    return install


def _without_torch(site_dirs: list[str], farm: Path) -> Path:
    """A folder of symlinks to everything in `site_dirs` except torch's own packages and metadata."""
    farm.mkdir()
    for site_dir in map(Path, site_dirs):
        for entry in site_dir.iterdir():
            if re.split(r"[-.]", entry.name)[0].lower() in TORCH_DISTS or (farm / entry.name).exists():
                continue
            (farm / entry.name).symlink_to(entry)
    return farm


class InstalledGrader:
    """The `grader` command of a venv, run as a user runs it: from `cwd`, with only the venv on PATH."""

    def __init__(self, venv: Path) -> None:
        self.venv = venv

    def run(self, cwd: Path, *args: str) -> subprocess.CompletedProcess:
        env = {"PATH": f"{self.venv / 'bin'}:/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(cwd / "state"),
               "HOME": str(cwd)}
        return subprocess.run([str(self.venv / "bin" / "grader"), *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=300)

    def assert_imported_from_the_venv(self, cwd: Path) -> None:
        where = subprocess.run([str(self.venv / "bin" / "python"), "-c", "import grader; print(grader.__file__)"],
                               cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
        assert where.startswith(str(self.venv)) and not where.startswith(str(ROOT)), where

    def assert_check_diagnoses(self, cwd: Path) -> None:
        """A zero-filled mask is diagnosed from the shipped fingerprints, and partly credited."""
        shutil.copy(ROOT / "reference" / "mutants" / "zero_fill_mask.py", cwd / "buggy.py")
        check = self.run(cwd, "check", "buggy.py", "--json")
        assert check.returncode == 0, check.stderr
        report = json.loads(check.stdout)
        assert report["diagnoses"][0]["id"] == "zero_fill_mask"
        assert 0 < report["score"] < report["max_score"]

    def assert_quiz_and_cards(self, cwd: Path) -> None:
        (cwd / "answers.yaml").write_text("what-mixes: Queries and keys set the weights; the values are mixed.\n")
        quiz = self.run(cwd, "quiz", "check", "answers.yaml", "--json")
        assert quiz.returncode == 0, quiz.stderr
        verdicts = {item["id"]: item["verdict"] for item in json.loads(quiz.stdout)["items"]}
        assert verdicts["what-mixes"] == "correct" and verdicts["diagonal"] == "unanswered"
        cards = self.run(cwd, "cards", "--list", "--state", str(cwd / "cards.json"))
        assert cards.returncode == 0, cards.stderr
        assert "card-mask-diagonal" in cards.stdout


@pytest.fixture(scope="session")
def installed_grader() -> type[InstalledGrader]:
    """`installed_grader(venv)`: drive a venv's `grader` as a user would (see InstalledGrader)."""
    return InstalledGrader
