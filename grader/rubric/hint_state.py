"""How far each failing check's hints have gone, kept on disk between self-checks.

Scoring (`grader.rubric.score`) only reads and advances a `HintState` it is handed; whoever grades
(`grader.grade`) loads it before and saves it after, so scoring itself touches no file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.paths import atomic_write_text


class HintProgress(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seen: list[str] = Field(min_length=1, description="The hints of this check revealed, in order (their texts): a "
                                                      "new bug's hints are shown from its first unread one.")
    source: str | None = Field(description="Hash of the code that last revealed one.")


class HintState(BaseModel):
    """How far each failing check's hints have gone, per assignment and submission."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[3] = 3
    revealed: dict[str, dict[str, HintProgress]] = Field(default={}, description="key -> check id -> progress")


def load(path: Path) -> HintState:
    try:
        return HintState.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return HintState()  # missing or damaged: start again from the first hint


def save(path: Path, state: HintState) -> None:
    try:
        # Not fsynced: losing the last hint step to a crash costs nothing, an fsync per save costs time.
        atomic_write_text(path, state.model_dump_json(indent=2) + "\n", durable=False)
    except OSError:
        pass  # hints are a convenience: an unwritable state file must not stop a self-check
