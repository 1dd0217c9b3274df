"""The intake gallery: files written to stop a class run before any code is graded.

Each attack is one file as a platform exports it (so intake reads it as one student's), built here
at test time: several are megabytes or 100,000 levels deep, which is no file to commit. The
expectation for every one is the same: the class run ends with a gradebook, the attacker's row
says why nothing was graded (or grades what could be read), and every other student is graded.
`write_class(folder)` lays them all out beside one honest submission.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
DEEP = 100_000


def notebook(*cells: str) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
        for c in cells]}).encode()


def _deep_expression(depth: int = DEEP) -> str:
    return "x = " + "-" * depth + "1\n"  # ast.parse: MemoryError (a unary chain the parser cannot hold)


def _deep_sum(depth: int = DEEP) -> str:
    return "x = " + "+".join(["1"] * depth) + "\n"  # ast.parse: RecursionError


def _modest_depth(depth: int = 900) -> str:
    """Parses (under the parser's own limit), but deep enough to stop any recursive reader of the tree."""
    return "def causal_attention(q, k, v):\n    return " + "+".join(["v"] * depth) + "\n"


def _reverse_chain(size: int = 1 << 20) -> bytes:
    """Assignments each needing the next one down the notebook: a fixed-point loop over the statements
    keeps one per pass (quadratic); about 1 MB of notebook."""
    n = size // 20
    lines = [f"x{i} = x{i + 1}" for i in range(n)] + [f"x{n} = 0"]
    body = "\n".join(reversed(lines)) + "\n"
    return notebook("def causal_attention(q, k, v):\n    return v * x0\n", body)


def _chain_under_cap(n: int = 19_000) -> bytes:
    """The same chain, under the statement cap: converted (every link is needed) in linear time."""
    lines = [f"x{i} = x{i + 1}" for i in range(n)] + [f"x{n} = 1"]
    return notebook(REFERENCE.replace("    return out, weights", "    return out * x0, weights"),
                    "\n".join(reversed(lines)) + "\n")


def _json_deep() -> bytes:
    return b'{"cells": ' + b"[" * DEEP + b"]" * DEEP + b"}"


def _yaml_deep() -> bytes:
    return b"submission_1:\n  :submitters: " + b"[" * DEEP + b"]" * DEEP + b"\n"


def _online_text(code: str) -> bytes:
    paragraphs = "".join(f"<p>{line.replace('<', '&lt;')}</p>" for line in code.splitlines())
    return f"<!DOCTYPE html><html><head></head><body>{paragraphs}</body></html>".encode()


def _zip(members: dict[str, bytes]) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


@dataclass(frozen=True)
class Attack:
    name: str  # the attack, in words
    path: str  # where it lies in the class export (Canvas's and Moodle's names: its own student)
    build: Callable[[], bytes]


ATTACKS = [
    Attack("deeply nested expression in a .py", "deeppy_201_9001_attention.py",
           lambda: (REFERENCE + _deep_expression()).encode()),
    Attack("a sum 100,000 terms long in a .py", "deepsum_202_9002_attention.py",
           lambda: (REFERENCE + _deep_sum()).encode()),
    Attack("an expression 900 deep that parses", "modest_203_9003_attention.py",
           lambda: _modest_depth().encode()),
    Attack("NUL bytes in a .py", "nulbyte_204_9004_attention.py",
           lambda: REFERENCE.encode() + b"\x00\n"),
    Attack("deeply nested expression in a notebook cell", "deepcell_205_9005_attention.ipynb",
           lambda: notebook(REFERENCE, _deep_expression())),
    Attack("notebook JSON nested 100,000 deep", "deepjson_206_9006_attention.ipynb", _json_deep),
    Attack("1 MB notebook of reverse-ordered assignments", "chain_207_9007_attention.ipynb", _reverse_chain),
    Attack("19,000 reverse-ordered assignments a definition needs", "chain_213_9013_attention.ipynb",
           _chain_under_cap),
    Attack("1 MB of blank lines and a syntax error in a .py", "blank_214_9014_attention.py",
           lambda: b"def causal_attention(q, k, v)\n" + b"\n" * ((1 << 20) - 64)),
    Attack("a notebook cell of blank lines that does not parse", "blankcell_215_9015_attention.ipynb",
           lambda: notebook(REFERENCE, "\n" * 500_000 + "def (")),
    Attack("notebook cell whose source is not text", "badcell_208_9008_attention.ipynb",
           lambda: json.dumps({"cells": [{"cell_type": "code", "source": [1, None, {"a": 2}]}]}).encode()),
    Attack("notebook with an integer of 100,000 digits", "bigint_209_9009_attention.ipynb",
           lambda: b'{"cells": [], "x": ' + b"9" * DEEP + b"}"),
    Attack("deeply nested expression in Moodle online text",
           "Deep Text_210_assignsubmission_onlinetext_onlinetext.html",
           lambda: _online_text("def causal_attention(q, k, v):\n    return " + "-" * DEEP + "v")),
    Attack("Moodle online text of 1 MB of unclosed tags",
           "Tag Soup_211_assignsubmission_onlinetext_onlinetext.html",
           lambda: b"<p>def causal_attention(q, k, v):</p>" + b"<a " * (1 << 18)),
    Attack("Moodle online text in an unclosed comment and 100,000 nested tags",
           "Deep Tags_216_assignsubmission_onlinetext_onlinetext.html",
           lambda: b"<div>" * DEEP + b"<p>def causal_attention(q, k, v):</p>" + b"<!--" + b"<!" * DEEP),
    Attack("a zip whose .py is nested 100,000 deep", "deepzip_212_9012_attention.zip",
           lambda: _zip({"attention.py": (REFERENCE + _deep_expression()).encode()})),
    Attack("submission_metadata.yml nested 100,000 deep", "submission_metadata.yml", _yaml_deep),
]


def write_class(folder: Path) -> dict[str, str]:
    """Every attack and one honest student (`honest_200_9000_attention.py`) in one Canvas-style folder;
    returns attack name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "honest_200_9000_attention.py").write_text(REFERENCE)
    for attack in ATTACKS:
        (folder / attack.path).write_bytes(attack.build())
    return {a.name: a.path for a in ATTACKS}
