"""Scoring is pure: it turns outcomes (and a hint state it is handed) into points and hints, and
touches no file. The hint state is loaded and saved by whoever grades (grader/grade.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import grader.rubric.score as score

# What reading or writing a file looks like in this code base.
FILE_IO = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "atomic_write_text", "Path", "json"}


def file_io(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name in FILE_IO:
            found.append(f"line {node.lineno}: {name}")
    return found


def test_scoring_reads_and_writes_no_file():
    assert not file_io(Path(score.__file__).read_text(encoding="utf-8"))


def test_a_file_written_while_scoring_is_caught():
    # Negative control: the hint state saved inside scoring, as it once was.
    assert file_io("def save(self):\n    atomic_write_text(self.path, self.state.model_dump_json())\n")
    assert file_io("def load(p):\n    return json.loads(p.read_text())\n")
