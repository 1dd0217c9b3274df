"""File names for per-student outputs: safe anywhere, and never shared by two students.

The readable part is the student's name and their id (two "Li, Wei" are `Li_Wei-1006-...` and
`Li_Wei-1007-...`), with everything but letters, digits, '.', '_' and '-' replaced; a hash of the
student's key follows it, so `alice~smith` and `alice_smith` (or a name crafted to look like another's)
never write the same file. The same student gets the same name in every run and every shard.
`student_label` is the same idea for a person reading a list: the name with the id beside it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PureWindowsPath

from grader.intake.models import Student
from grader.intake.platforms import GRADESCOPE_FOLDER, MOODLE_FOLDER
from grader.report.models import Report


def _slug(text: str, limit: int) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:limit]


def student_filename(key: str, label: str, id: str = "") -> str:
    """`label` is the name; `id`, when it is not the name itself, follows it (kept whole however long the name)."""
    parts = [_slug(label, 60) or "student", *([_slug(id, 40)] if id and id != label and _slug(id, 40) else [])]
    return f"{'-'.join(parts)}-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


def student_label(student: Student) -> str:
    """A student as every list an instructor reads names them (the summary, the run's lines on stderr): the
    name and, when there is one that is not the name itself, the id, so two students of one name stay apart."""
    if student.id and student.name and student.id != student.name:
        return f"{student.name} ({student.id})"
    return student.name or student.id


def handed_back(report: Report, student: Student) -> Report:
    """The report a student is handed back, titled with the file as they named it ("attention.py"), never with
    the instructor's path to the export or the platform's renaming of it. (A row stored before `handed_in` was
    kept falls back to the file's own name.)"""
    own = student.handed_in or PureWindowsPath(student.submission or report.submission).name  # '/' and '\\' both split
    parts = own.split("/")
    # The platform's own folder for the student (Moodle's `Name_id_assignsubmission_file/`, Gradescope's
    # `submission_<id>/`) is the export's naming, not the student's: the title starts after it.
    for i in range(len(parts) - 1, 0, -1):
        if MOODLE_FOLDER.match(parts[i - 1]) or GRADESCOPE_FOLDER.match(parts[i - 1]):
            parts = parts[i:]
            break
    return report.model_copy(update={"submission": "/".join(parts) or student.name})
