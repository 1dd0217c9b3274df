"""What intake hands to a class run: students (one per person, their latest submission) and what was left out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Platform = Literal["canvas", "moodle", "gradescope", "folder", "file", "roster"]


class Student(BaseModel):
    """One row of the gradebook. `key` is unique across the class and stable across runs and shards."""

    model_config = ConfigDict(extra="forbid")

    key: str
    id: str
    name: str
    email: str = ""
    section: str = ""
    sis_id: str = ""  # the roster's SIS User ID, for the gradebook's column of that name
    sis_login: str = ""
    platform: Platform
    submission: str = ""  # the file graded, as found (inside an archive: archive/member)
    handed_in: str = ""  # the same file as the student named it, within their own submission (no export path)
    late: bool = False
    source_sha256: str = ""  # of the file the sandbox runs (after notebook conversion or packing)
    converted: bool = False  # the graded file is not the file handed in (notebook, helpers packed)
    on_roster: bool | None = None  # None: no roster given
    position: int = 0  # order in the class as found (command-line order, then names); every shard agrees
    notes: list[str] = []


class Skipped(BaseModel):
    """A path that was not graded, and why."""

    model_config = ConfigDict(extra="forbid")

    path: str
    reason: str
