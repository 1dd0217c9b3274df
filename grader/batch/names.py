"""File names for per-student outputs: safe anywhere, and never shared by two students.

The readable part is the student's name with everything but letters, digits, '.', '_' and '-'
replaced; a hash of the student's key follows it, so `alice~smith` and `alice_smith` (or a name
crafted to look like another's) never write the same file. The same student gets the same name in
every run and every shard.
"""

from __future__ import annotations

import hashlib
import re


def student_filename(key: str, label: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._-")[:60] or "student"
    return f"{slug}-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"
