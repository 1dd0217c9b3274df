"""What intake hands to a class run: students (one per person, their latest submission) and what was left out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Platform = Literal["canvas", "moodle", "gradescope", "folder", "file", "roster"]
# What a person must look at before a row is imported (review.csv); a class run adds "grader_error".
FlagKind = Literal["ungradable", "two_candidates", "ambiguous_identity", "identity_conflict", "not_on_roster",
                   "interface"]


class Flag(BaseModel):
    """One reason a row needs a human, with the evidence that raised it."""

    model_config = ConfigDict(extra="forbid")

    kind: FlagKind
    detail: str


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
    submission_id: str = ""  # the platform's id of the submission itself (Gradescope's `submission_<id>`)
    matched_by: str = ""  # the roster key that named this student ("moodle participant id", "email", "name", ...)
    flags: list[Flag] = []  # why a person must look at this row before importing it (empty: nothing to look at)

    def flag(self, kind: FlagKind, detail: str) -> None:
        self.flags.append(Flag(kind=kind, detail=detail))


class Skipped(BaseModel):
    """A path that was not graded, and why."""

    model_config = ConfigDict(extra="forbid")

    path: str
    reason: str
