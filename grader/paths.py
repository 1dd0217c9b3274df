"""Where files live: data shipped inside the package, per-user state, and writing either safely.

The files an instructor edits, `rubrics/` and `quiz.json`, sit at the top of the checkout: a checkout
reads them there, and a build maps them into the package (`grader/data/`, by setup.py's build step),
so an installed wheel reads its own copy. Generated data (fingerprints, schemas) sits under
`grader/data/` and `grader/schemas/`. Everything is found from any working directory.
"""

from __future__ import annotations

import os
import tempfile
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import platformdirs

# The source checkout, for instructor-only inputs that are never packaged (reference/, tests/).
ROOT = Path(__file__).resolve().parents[1]


def packaged(*parts: str) -> Traversable:
    """A data file shipped inside the package, e.g. packaged("rubrics", "causal_attention.yaml")."""
    return files("grader").joinpath("data", *parts)


def shipped(*parts: str) -> Traversable:
    """A file an instructor edits (rubrics/, quiz.json): the checkout's own at the top level where this
    is a checkout, else the copy the build mapped into the package."""
    top = ROOT.joinpath(*parts)
    if (ROOT / "pyproject.toml").is_file() and top.is_file():
        return top
    return packaged(*parts)


# The top-level names the build maps into grader/data/ (setup.py reads this tuple too).
TOP_LEVEL_DATA = ("rubrics", "quiz.json")
INSTRUCTOR_RUBRIC = shipped("rubrics", "causal_attention.yaml")
# Only in a student bundle, written by `release` from the instructor rubric's student view.
SELF_CHECK_RUBRIC = packaged("rubrics", "self_check.yaml")
QUIZ = shipped("quiz.json")
CATALOGUE = packaged("catalogue.json")
# Present only in the student's wheel (`release`): the CLI then offers check, quiz and cards alone.
STUDENT_EDITION = packaged("student-edition.json")
# torch's CPU-only builds: what a student or a Gradescope image installs, never the multi-GB CUDA one.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def data_dir() -> Path:
    return Path(os.environ.get("GRADER_DATA_DIR") or platformdirs.user_data_dir("attention-grader"))


def state_path(explicit: str | os.PathLike | None, env_var: str, filename: str) -> Path:
    """--flag wins, then the environment variable, then the data directory."""
    if explicit:
        return Path(explicit)
    if os.environ.get(env_var):
        return Path(os.environ[env_var])
    return data_dir() / filename


def hint_state() -> Path:
    return state_path(None, "GRADER_HINT_STATE", "hints.json")


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True, skip_unchanged: bool = False) -> None:
    """The one way the grader writes a file: beside the target, then renamed over it, so a crash
    leaves the old file or the new, never half (the temporary file is private, mode 0600).

    `durable` fsyncs before the rename (state and results); a file that can always be rebuilt
    (a class run's derived reports) skips it, and with `skip_unchanged` is not rewritten at all.
    """
    path = Path(path)
    if skip_unchanged:
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                return
        except OSError:
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str, *, durable: bool = True, skip_unchanged: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable, skip_unchanged=skip_unchanged)
