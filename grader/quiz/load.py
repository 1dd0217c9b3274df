"""Read quiz.json and answer files; every problem becomes ``FILE:LINE: message``, never a traceback."""

from __future__ import annotations

import bisect
import difflib
import json
import re
from importlib.resources.abc import Traversable
from json.decoder import scanstring
from pathlib import Path

import yaml
from pydantic import ValidationError

from grader.paths import QUIZ
from grader.quiz.models import Quiz

DEFAULT_QUIZ = QUIZ


class QuizFileError(Exception):
    """A file the learner or author gave us is unusable; the message is ready to print."""


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate key {dupes[0]!r}")
    return dict(pairs)


_WS = re.compile(r"\s*")
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _positions(text: str) -> dict[tuple, int]:
    """Map every JSON path to the character offset where its value (or key) starts.

    Only called on text json.loads already accepted, so it can stay this small.
    """
    out: dict[tuple, int] = {}

    def value(pos: int, path: tuple) -> int:
        pos = _WS.match(text, pos).end()
        out.setdefault(path, pos)
        ch = text[pos]
        if ch == "{":
            pos = _WS.match(text, pos + 1).end()
            if text[pos] == "}":
                return pos + 1
            while True:
                key_pos = _WS.match(text, pos).end()
                key, pos = scanstring(text, key_pos + 1)
                out[path + (key,)] = key_pos
                pos = _WS.match(text, pos).end() + 1  # the colon
                pos = _WS.match(text, value(pos, path + (key,))).end()
                if text[pos] == "}":
                    return pos + 1
                pos += 1  # the comma
        if ch == "[":
            pos = _WS.match(text, pos + 1).end()
            if text[pos] == "]":
                return pos + 1
            i = 0
            while True:
                pos = _WS.match(text, value(pos, path + (i,))).end()
                if text[pos] == "]":
                    return pos + 1
                pos, i = pos + 1, i + 1
        if ch == '"':
            return scanstring(text, pos + 1)[1]
        return _SCALAR.match(text, pos).end()

    value(0, ())
    return out


def _line_of(text: str, offset: int) -> int:
    starts = [m.end() for m in re.finditer("\n", text)]
    return bisect.bisect_right(starts, offset) + 1


def _data_path(data, loc: tuple) -> tuple:
    """Drop the parts of a pydantic location that are not in the data (union tags, validators)."""
    path: list = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
            path.append(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            path.append(part)
    return tuple(path)


def _dotted(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def load_quiz(path: Path | str | Traversable = DEFAULT_QUIZ) -> Quiz:
    path = Path(path) if isinstance(path, str) else path
    name = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuizFileError(f"{path}: cannot read quiz file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise QuizFileError(f"{name}:1: not UTF-8 text") from None
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise QuizFileError(f"{name}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except ValueError as exc:
        raise QuizFileError(f"{name}:1: invalid JSON: {exc}") from None
    try:
        return Quiz.model_validate(data)
    except ValidationError as exc:
        positions = _positions(text)
        lines = []
        seen = set()
        for err in exc.errors():
            where = _data_path(data, err["loc"])
            # A union reports one error per branch; the first names the real problem.
            if where in seen:
                continue
            seen.add(where)
            line = _line_of(text, positions.get(where, 0))
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"{name}:{line}: {_dotted(where) or '(top level)'}: {msg}")
        raise QuizFileError("\n".join(dict.fromkeys(lines))) from None


def _as_text(value) -> str | None:
    """YAML may turn '0.5' into a float or '[1, 2]' into a list; the judge wants the learner's text."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_as_text(v) or "" for v in value) + "]"
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_as_text(v)}" for k, v in value.items())
    return str(value)


def load_answers(path: Path | str, quiz: Quiz) -> dict[str, str | None]:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise QuizFileError(f"{path}: cannot read answers: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise QuizFileError(f"{path.name}:1: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise QuizFileError(f"{path.name}:{line}: invalid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise QuizFileError(
            f"{path.name}:1: expected a mapping from item id to your answer, e.g.\n  diagonal: |\n    ..."
        )
    known = {i.id for i in quiz.items}
    cards = {c.id for c in quiz.cards}
    problems = []
    for key in data:
        if str(key) in cards:
            problems.append(f"{key!r} is a recall card; review cards with 'grader cards'")
        elif str(key) not in known:
            close = difflib.get_close_matches(str(key), [i.id for i in quiz.items], n=1)
            problems.append(f"unknown item id {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    if problems:
        raise QuizFileError(
            f"{path.name}: " + "; ".join(problems) + f"\nknown ids: {', '.join(i.id for i in quiz.items)}"
        )
    return {str(k): _as_text(v) for k, v in data.items()}
