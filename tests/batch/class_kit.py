"""A small class and the outputs a run leaves, compared byte for byte but for wall times: what `--jobs N`
and a Slurm array of shards must reproduce of one run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ("no_mask", "missing_scale", "softmax_wrong_axis", "future_offset", "process_exit", "swapped_return")


def small_class(folder: Path) -> None:
    folder.mkdir()
    reference = (ROOT / "reference" / "attention.py").read_text()
    (folder / "ada.py").write_text(reference)
    (folder / "ada_again.py").write_text(reference)  # one source, two students: graded once
    (folder / "bo.py").write_text(reference + "\n# my own comment\n")
    for name in MUTANTS:
        (folder / f"{name}.py").write_text((ROOT / "reference" / "mutants" / f"{name}.py").read_text())
    (folder / "notes.txt").write_text("not a submission")


def grade(folder: Path, out: Path, *extra: str, cwd: Path = ROOT, secret: str = "jobs-secret",
          ) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADER_SECRET": secret}
    return subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600, env=env, cwd=cwd)


def without_wall_times(text: str) -> str:
    text = re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', text)
    return re.sub(r"wall time [0-9.]+ s", "wall time 0 s", text)  # the feedback's markdown


def outputs(out: Path) -> dict[str, str]:
    files = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out)
        if path.is_file() and rel.parts[0] not in ("staged",) and not rel.name.startswith("store.sqlite3") \
                and rel.suffix != ".html":  # summary.html draws the run's timings
            text = without_wall_times(path.read_text())
            if rel.name == "summary.md":  # its slowest submissions, ranked by wall time
                text = re.sub(r"## Slowest submissions\n.*?(?=^## |\Z)", "", text, flags=re.MULTILINE | re.DOTALL)
            files[str(rel)] = text
    return files
