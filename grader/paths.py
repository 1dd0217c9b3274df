"""Where per-user state lives; every path can be overridden by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    return Path(os.environ.get("GRADER_DATA_DIR") or platformdirs.user_data_dir("attention-grader"))


def hint_state() -> Path:
    return Path(os.environ.get("GRADER_HINT_STATE") or data_dir() / "hints.json")
