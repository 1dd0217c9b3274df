"""Read a rubric from YAML and report every problem as FILE:LINE:COLUMN: message, never a traceback."""

from __future__ import annotations

import difflib
import functools
import re
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from grader.checks.registry import CHECK_IDS
from grader.paths import INSTRUCTOR_RUBRIC, SELF_CHECK_RUBRIC
from grader.rubric.model import UNION_TAGS, Feedback, Rubric, RubricCheck, RubricLimits, ToleranceSpec

# libyaml's parser where present (10x faster); its nodes carry the same start marks.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Path_ = tuple[str | int, ...]
Mark = tuple[int, int]  # 1-based line and column
M = TypeVar("M", bound=BaseModel)


class RubricError(Exception):
    """A rubric that cannot be used; `problems` are 'FILE:LINE:COLUMN: message' lines."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def load_rubric(path: str | Path | Traversable) -> Rubric:
    """A path given by a user, or a rubric shipped with the package (grader.paths.INSTRUCTOR_RUBRIC)."""
    path = Path(path) if isinstance(path, str) else path
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise RubricError([f"{path}:1:1: not UTF-8 text ({err.reason} at byte {err.start})"]) from None
    except OSError as err:
        raise RubricError([f"{path}:1:1: cannot read the rubric: {err.strerror or err}"]) from None
    return parse_rubric(text, str(path))


def parse_rubric(text: str, filename: str = "<rubric>") -> Rubric:
    data, positions = _read_yaml(text, filename)
    try:
        return Rubric.model_validate(data)
    except ValidationError as err:
        raise RubricError(_located(err, data, positions, filename)) from None


def parse_model(text: str, filename: str, model: type[M]) -> M:
    """Any other YAML file of ours (a course file) validated into `model` with the rubric's
    FILE:LINE:COLUMN messages; RubricError carries the problems."""
    data, positions = _read_yaml(text, filename)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise RubricError(_located(err, data, positions, filename)) from None


@functools.cache
def load_self_check() -> Rubric:
    """What `check` runs: a student bundle's generated self_check.yaml, else the student view of the
    instructor rubric. One YAML file, two views: there is no hand-kept copy to drift."""
    if SELF_CHECK_RUBRIC.is_file():
        return load_rubric(SELF_CHECK_RUBRIC)
    return load_rubric(INSTRUCTOR_RUBRIC).student_view()


def dump_rubric(rubric: Rubric, *, header: str = "") -> str:
    """YAML that `parse_rubric` reads back to an equal Rubric; `header` lines become comments."""
    comments = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
    data = rubric.model_dump(mode="json", exclude_defaults=True)
    return comments + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


# --- YAML with positions -------------------------------------------------------------------------


class _Positions:
    """Where each key and value of the document starts, by path from the root."""

    def __init__(self) -> None:
        self.keys: dict[Path_, Mark] = {}
        self.values: dict[Path_, Mark] = {}


def _mark(node: yaml.Node) -> Mark:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _read_yaml(text: str, filename: str) -> tuple[dict[str, Any], _Positions]:
    tabs = [
        f"{filename}:{n}:{line.index(chr(9)) + 1}: tab character in indentation; indent YAML with spaces"
        for n, line in enumerate(text.splitlines(), start=1)
        if "\t" in line[: len(line) - len(line.lstrip(" \t"))]
    ]
    if tabs:
        raise RubricError(tabs)
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        positions = _Positions()
        problems: list[str] = []
        data = _construct(loader, root, (), positions, problems, filename, set()) if root is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        what = " ".join(p for p in (err.context, err.problem) if p)
        raise RubricError([f"{filename}:{where}: invalid YAML: {what}"]) from None
    except yaml.YAMLError as err:
        raise RubricError([f"{filename}:1:1: invalid YAML: {err}"]) from None
    except RecursionError:
        raise RubricError([f"{filename}:1:1: invalid YAML: nested too deeply to be a rubric"]) from None
    finally:
        loader.dispose()
    if problems:
        raise RubricError(problems)
    if data is None:
        raise RubricError([f"{filename}:1:1: the rubric is empty; expected keys such as assignment_id, title and checks"])
    if not isinstance(data, dict):
        line, col = _mark(root)
        raise RubricError([
            f"{filename}:{line}:{col}: the rubric must be a mapping of keys (assignment_id, title, checks, ...), "
            f"not a {_kind(data)}"
        ])
    return data, positions


def _construct(
    loader: yaml.SafeLoader,  # or CSafeLoader: the same constructor methods
    node: yaml.Node,
    path: Path_,
    positions: _Positions,
    problems: list[str],
    filename: str,
    active: set[int],
) -> Any:
    positions.values[path] = _mark(node)
    if id(node) in active:  # an alias to a node that contains it
        line, col = _mark(node)
        problems.append(f"{filename}:{line}:{col}: recursive alias; a rubric must be a finite tree")
        return None
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_object(node, deep=True)
    active = active | {id(node)}
    if isinstance(node, yaml.SequenceNode):
        return [
            _construct(loader, item, (*path, i), positions, problems, filename, active)
            for i, item in enumerate(node.value)
        ]
    loader.flatten_mapping(node)  # resolves '<<' merge keys the way PyYAML's own loader does
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        line, col = _mark(key_node)
        key = loader.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str | int | float | bool) or key is None:
            problems.append(f"{filename}:{line}:{col}: a key must be a plain name")
            continue
        if key in result:
            first_line, first_col = positions.keys[(*path, key)]
            problems.append(f"{filename}:{line}:{col}: duplicate key {key!r}, already at line {first_line}")
            continue
        positions.keys[(*path, key)] = (line, col)
        result[key] = _construct(loader, value_node, (*path, key), positions, problems, filename, active)
    return result


def _kind(value: Any) -> str:
    return {list: "list", str: "text", int: "number", float: "number", bool: "boolean"}.get(type(value), type(value).__name__)


# --- pydantic errors with positions ----------------------------------------------------------------

_FIELD_NAMES = sorted(
    {name for model in (Rubric, RubricCheck, Feedback, ToleranceSpec, RubricLimits)
     for name in model.model_fields}
)


def _located(err: ValidationError, data: dict[str, Any], positions: _Positions, filename: str) -> list[str]:
    problems: list[tuple[Mark, str]] = []
    for error in err.errors():
        if error["type"] == "rubric_consistency":
            for loc, message in error["ctx"]["problems"]:
                problems.append(_problem(loc, message, data, positions, on_key=False))
            continue
        loc = tuple(part for part in error["loc"] if part != "[key]" and part not in UNION_TAGS)
        on_key = error["type"] == "extra_forbidden" or error["loc"][-1:] == ("[key]",)
        problems.append(_problem(loc, _message(error, loc), data, positions, on_key=on_key))
    # Sorted by position, so the list reads top to bottom like the file.
    return [f"{filename}:{line}:{col}: {message}" for (line, col), message in sorted(problems)]


def _problem(loc: Path_, message: str, data: dict[str, Any], positions: _Positions, *, on_key: bool) -> tuple[Mark, str]:
    found: Path_ = ()
    for part in loc:
        if (*found, part) not in positions.values:
            break
        found = (*found, part)
    if found == loc and on_key and found in positions.keys:
        mark = positions.keys[found]
    else:
        mark = positions.values.get(found, (1, 1))
    return mark, f"{_label(loc, data)}: {message}" if loc else message


def _label(loc: Path_, data: dict[str, Any]) -> str:
    """checks[3] (mask_structure).points: names the key and, for a check, its id."""
    label = ""
    for i, part in enumerate(loc):
        label += f"[{part}]" if isinstance(part, int) else (f".{part}" if label else str(part))
        if i == 1 and loc[0] == "checks" and isinstance(part, int):
            item = data.get("checks", [])[part] if isinstance(data.get("checks"), list) else None
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                label += f" ({item['id']})"
    return label


# Keys older rubrics had, which nothing read; the checks now decide both.
_RETIRED = {
    ("entry_points",): "entry_points is no longer a rubric key: the checks name what they call "
                       "(causal_attention, SingleHead); delete it",
    ("forbidden_apis",): "forbidden_apis is no longer a rubric key: the forbidden_api check trips every door "
                         "to fused attention (scaled_dot_product_attention, MultiheadAttention); delete it",
}


def _did_you_mean(word: Any, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _message(error: dict[str, Any], loc: Path_) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    is_check_id = loc[-1:] == ("id",) or (len(loc) >= 2 and loc[-2] == "requires")
    if kind == "literal_error" and is_check_id:
        return f"unknown check id {value!r}{_did_you_mean(value, CHECK_IDS)}; see grader/checks/registry.py"
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", ctx.get("expected", ""))
        return f"unknown value {value!r}{_did_you_mean(value, choices)}; expected one of {', '.join(choices)}"
    if kind == "extra_forbidden" and loc in _RETIRED:
        return _RETIRED[loc]
    if kind == "extra_forbidden":
        return f"unknown key{_did_you_mean(loc[-1], _FIELD_NAMES)}"
    if kind == "missing":
        return "required key is missing"
    if kind in ("float_type", "float_parsing"):
        if isinstance(value, str) and _looks_numeric(value):
            if value.isdigit() or re.fullmatch(r"[-+]?[0-9]*\.[0-9]*([eE][-+][0-9]+)?", value):
                return f"must be a number, got quoted text {value!r}; remove the quotes"
            # YAML 1.1 (PyYAML) reads 1e-12 and 1.0e5 as text; 1.0e-12 and 1.0e+5 are numbers.
            return f"must be a number, got text {value!r}; write exponents with a dot and a sign, e.g. 1.0e-12"
        return f"must be a number, got {_kind(value)} {value!r}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"must be a whole number, got {_kind(value)} {value!r}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"must be {'>=' if kind == 'greater_than_equal' else '>'} {ctx.get('ge', ctx.get('gt')):g}, got {value!r}"
    if kind in ("less_than_equal", "less_than"):
        return f"must be {'<=' if kind == 'less_than_equal' else '<'} {ctx.get('le', ctx.get('lt')):g}, got {value!r}"
    if kind == "finite_number":
        return f"must be a finite number, got {value!r}"
    if kind in ("string_type", "string_too_short"):
        return f"must be non-empty text, got {value!r}"
    if kind == "string_pattern_mismatch":
        return f"{value!r} is not a valid name here (expected pattern {ctx.get('pattern')})"
    if kind == "list_type":
        return f"must be a list, got {_kind(value)} {value!r}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be a mapping of keys, got {_kind(value)} {value!r}"
    if kind == "too_short":
        return "must not be empty"
    if kind == "value_error":
        return error["msg"].removeprefix("Value error, ")
    return error["msg"]


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
