"""A notebook as the script it is graded as.

What a notebook defines is graded; what it runs is not. From its code cells (in order) we keep the
imports, functions and classes, and the assignments those definitions (or the entry points) use;
we leave out shell (`!`) and magic (`%`, `%%`) lines, `check(...)` calls, plots, prints, asserts and
every other statement the notebook runs to try itself out. An import is kept only when kept code uses
the name it binds, so `from grader import check` goes too.

A notebook exported to a script (`jupyter nbconvert --to script`: `# In[ ]:` markers, magics as
`get_ipython()` calls) is split back into the same cells and gives the same script, so it grades the same.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from grader.vocabulary import ENTRY_NAMES

_CELL_MARK = re.compile(r"^# In\[[ \d]*\]:[ \t]*$", re.M)
_HELP = re.compile(r"^[\w.]+\?{1,2}$")
_KEEP_ALWAYS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ASSIGN = (ast.Assign, ast.AnnAssign, ast.AugAssign)


@dataclass
class Converted:
    script: str
    notes: list[str] = field(default_factory=list)  # what was left out that an instructor may want to know


def code_cells(data: bytes) -> list[str]:
    """The code cells of an .ipynb file; ValueError when it is not a notebook."""
    try:
        nb = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a readable notebook: {exc}") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a Jupyter notebook (no list of cells)")
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            out.append("".join(src) if isinstance(src, list) else str(src))
    return out


def exported_cells(text: str) -> list[str] | None:
    """The cells of a script written by `nbconvert --to script`, or None when it is not one."""
    marks = list(_CELL_MARK.finditer(text))
    if not marks:
        return None
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [text[m.end():end].strip("\n") for m, end in zip(marks, ends, strict=True)]


def is_exported_notebook(text: str) -> bool:
    return exported_cells(text) is not None


def notebook_to_script(data: bytes) -> Converted:
    return script_from_cells(code_cells(data))


def exported_to_script(text: str) -> Converted:
    cells = exported_cells(text)
    return script_from_cells(cells) if cells is not None else Converted(text)


def _strip_magics(cell: str) -> str:
    if cell.lstrip().startswith("%%"):
        return ""  # a cell magic makes the whole cell something other than Python (%%bash, %%time ...)
    lines = []
    for line in cell.splitlines():
        s = line.strip()
        lines.append("" if s.startswith(("!", "%")) or _HELP.match(s) else line)  # blank keeps line numbers
    return "\n".join(lines)


def _defines_entry(text: str, entries: tuple[str, ...]) -> bool:
    return any(re.search(rf"^\s*(def|class)\s+{re.escape(n)}\b", text, re.M) for n in entries)


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, _KEEP_ALWAYS):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _is_import_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.Try) and all(isinstance(s, ast.Import | ast.ImportFrom) for s in node.body)


def script_from_cells(cells: list[str], entries: tuple[str, ...] = ENTRY_NAMES) -> Converted:
    notes: list[str] = []
    cleaned = [_strip_magics(c) for c in cells]
    parsed: list[tuple[int, list[str], ast.Module]] = []
    for i, cell in enumerate(cleaned):
        try:
            parsed.append((i, cell.splitlines(), ast.parse(cell)))
        except SyntaxError as exc:
            if _defines_entry(cell, entries):
                # The graded code does not parse: grade it as it is, so the student sees the syntax error.
                body = "\n\n".join(f"# cell {j + 1}\n{c}" for j, c in enumerate(cleaned) if c.strip())
                return Converted(body + "\n", [f"cell {i + 1} does not parse: {exc.msg} (line {exc.lineno})"])
            notes.append(f"cell {i + 1} left out: it does not parse ({exc.msg}) and defines nothing graded")
    stmts = [(i, lines, node) for i, lines, tree in parsed for node in tree.body]
    needed = set(entries)
    keep: set[int] = set()
    for k, (_, _, node) in enumerate(stmts):
        if isinstance(node, _KEEP_ALWAYS):
            keep.add(k)
            needed |= _used(node)
    changed = True
    while changed:  # assignments and imports that kept code uses, until nothing new is needed
        changed = False
        for k, (_, _, node) in enumerate(stmts):
            if k in keep:
                continue
            future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            usable = isinstance(node, (ast.Import, ast.ImportFrom, *_ASSIGN)) or _is_import_guard(node)
            binds = set().union(*(_bound(s) for s in node.body)) if _is_import_guard(node) else (
                _bound(node) if usable else set())
            if future or (usable and binds & needed):
                keep.add(k)
                needed |= _used(node)
                changed = True
    out, last_cell = [], None
    for k, (i, lines, node) in enumerate(stmts):
        if k not in keep:
            continue
        if i != last_cell:
            out.append(f"\n# cell {i + 1}")
            last_cell = i
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        out.append("\n".join(lines[start - 1:node.end_lineno]))
    future = [s for s in out if s.startswith("from __future__")]
    body = [s for s in out if not s.startswith("from __future__")]
    return Converted("\n".join(future + body).strip("\n") + "\n", notes)
