"""A notebook as the script it is graded as.

What a notebook defines is graded; what it runs is not. From its code cells (in order) we keep the
imports, functions and classes, and the assignments those definitions read from the notebook's global
scope (found with `symtable`, Python's own account of scopes: a function's local `out` is not a global
it needs); an assignment is left out when it runs the graded names (`out = causal_attention(q, q, q[:2])`)
or anything defined to call them. We leave out shell (`!`) and magic (`%`, `%%`) lines, `check(...)`
calls, plots, prints, asserts and every other statement the notebook runs to try itself out. An import
is kept only when kept code uses the name it binds, so `from grader import check` goes too. Each name
is looked up once, so the conversion is linear in the notebook's size.

The script starts with `BANNER` and marks where each run of kept lines comes from (`# cell 3, line 5`):
`cell_line` reads a line of the script back as (cell, line in that cell), so an error is reported where
the student wrote it.

A notebook exported to a script (`jupyter nbconvert --to script`: `# In[ ]:` markers, magics as
`get_ipython()` calls) is split back into the same cells and gives the same script, so it grades the same.
"""

from __future__ import annotations

import ast
import re
import symtable
from collections import deque
from dataclasses import dataclass, field

from grader.intake.bounds import MAX_STATEMENTS, Unreadable, load_json, parse_python
from grader.vocabulary import ENTRY_NAMES

BANNER = "# Graded from a notebook: its imports, definitions and the constants they use, cell by cell."
_MARK = re.compile(r"^# cell (\d+), line (\d+)$")
_CELL_MARK = re.compile(r"^# In\[[ \d]*\]:[ \t]*$", re.M)
_HELP = re.compile(r"^[\w.]+\?{1,2}$")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ASSIGN = (ast.Assign, ast.AnnAssign, ast.AugAssign)
_SCOPES = (*_DEFINITIONS, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_GAP = 2  # dropped lines shown as blank lines rather than a new mark


@dataclass
class Converted:
    script: str
    notes: list[str] = field(default_factory=list)  # what was left out that an instructor may want to know


def code_cells(data: bytes) -> list[str]:
    """The code cells of an .ipynb file; `Unreadable` (a ValueError) when it is not a notebook."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not a readable notebook: {exc}") from None
    nb = load_json(text)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise Unreadable("not a Jupyter notebook (no list of cells)")
    if len(cells) > MAX_STATEMENTS:
        raise Unreadable(f"a notebook of {len(cells)} cells, over the {MAX_STATEMENTS} the grader reads")
    out = []
    for n, cell in enumerate(cells, 1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            if isinstance(src, list) and all(isinstance(s, str) for s in src):
                src = "".join(src)
            if not isinstance(src, str):
                raise Unreadable(f"not a Jupyter notebook: the source of cell {n} is not text")
            out.append(src)
    return out


def exported_cells(text: str) -> list[str] | None:
    """The cells of a script written by `nbconvert --to script`, or None when it is not one."""
    marks = list(_CELL_MARK.finditer(text))
    if not marks:
        return None
    ends = [m.start() for m in marks[1:]] + [len(text)]
    # nbconvert writes the mark's line and two blank lines: the cell's own blank lines keep its numbering.
    bodies = [text[m.end():end] for m, end in zip(marks, ends, strict=True)]
    cells = [(b[3:] if b.startswith("\n\n\n") else b.lstrip("\n")).rstrip("\n") for b in bodies]
    # nbconvert's own preamble is comments (`#!`, `# coding`); code above the first mark (a file exported and
    # then edited, or written by hand) is a cell of its own, never dropped.
    preamble = text[:marks[0].start()]
    if any(line.strip() and not line.lstrip().startswith("#") for line in preamble.splitlines()):
        cells.insert(0, preamble.strip("\n"))
    return cells


def is_exported_notebook(text: str) -> bool:
    return _CELL_MARK.search(text) is not None


def notebook_to_script(data: bytes) -> Converted:
    return script_from_cells(code_cells(data))


def exported_to_script(text: str) -> Converted:
    cells = exported_cells(text)
    return script_from_cells(cells) if cells is not None else Converted(text)


def cell_line(script: str, lineno: int) -> tuple[int, int] | None:
    """Where line `lineno` of a converted script was written: (cell, line in that cell), both from 1;
    None for a script this module did not write, or a line it added."""
    lines = script.splitlines()
    if not lines or lines[0] != BANNER or not 1 <= lineno <= len(lines):
        return None
    for i in range(lineno - 1, 0, -1):
        if m := _MARK.match(lines[i]):
            return (int(m[1]), int(m[2]) + lineno - 2 - i) if i < lineno - 1 else None
    return None


def _strip_magics(cell: str) -> str:
    if cell.lstrip().startswith("%%"):
        return ""  # a cell magic makes the whole cell something other than Python (%%bash, %%time ...)
    lines = []
    for line in cell.splitlines():
        s = line.strip()
        lines.append("" if s.startswith(("!", "%")) or _HELP.match(s) else line)  # blank keeps line numbers
    return "\n".join(lines)


def _defines_entry(text: str, entries: tuple[str, ...]) -> bool:
    # [ \t]*, not \s*: \s crosses newlines, and a cell of blank lines would be searched in quadratic time.
    return any(re.search(rf"^[ \t]*(def|class)[ \t]+{re.escape(n)}\b", text, re.M) for n in entries)


@dataclass
class _Statement:
    cell: int  # from 0
    first: int  # its lines in the cell, from 1 (decorators included)
    last: int
    node: ast.stmt
    binds: frozenset[str]
    reads: frozenset[str]  # names it reads from the notebook's global scope

    @property
    def kind(self) -> str:
        node = self.node
        if isinstance(node, _DEFINITIONS):
            return "definition"
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return "future"
        if isinstance(node, ast.Import | ast.ImportFrom) or _is_import_guard(node):
            return "import"
        return "assignment" if isinstance(node, _ASSIGN) else "run"


def _is_import_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.Try) and all(isinstance(s, ast.Import | ast.ImportFrom) for s in node.body)


def _binds(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, _DEFINITIONS):
        return {node.name}
    if _is_import_guard(node):
        return set().union(*(_binds(s) for s in node.body))
    if isinstance(node, _ASSIGN):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        # Names only: `SingleHead.forward = f` binds nothing, it changes what a definition does.
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return set()


def _reads(node: ast.stmt) -> set[str]:
    """The global names a statement reads when it runs, or when what it defines is called."""
    if not any(isinstance(n, _SCOPES) for n in ast.walk(node)):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    table = symtable.symtable(ast.unparse(node), "<cell>", "exec")
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    todo = list(table.get_children())
    while todo:
        scope = todo.pop()
        names |= {s.get_name() for s in scope.get_symbols() if s.is_referenced() and s.is_global()}
        todo += scope.get_children()
    return names


def _statements(cells: list[str], entries: tuple[str, ...]) -> tuple[list[_Statement], list[str]] | Converted:
    """Every top-level statement of every cell that parses; a Converted of the whole notebook when a
    cell that defines a graded name does not parse (graded as it is: the student sees the syntax error)."""
    notes: list[str] = []
    stmts: list[_Statement] = []
    for i, cell in enumerate(cells):
        try:
            tree = parse_python(cell)
        except SyntaxError as exc:
            if _defines_entry(cell, entries):
                body = [BANNER] + [f"# cell {j + 1}, line 1\n{c}" for j, c in enumerate(cells) if c.strip()]
                return Converted("\n\n".join(body) + "\n", [f"cell {i + 1} does not parse: {exc.msg} (line {exc.lineno})"])
            notes.append(f"cell {i + 1} left out: it does not parse ({exc.msg}) and defines nothing graded")
            continue
        except Unreadable as exc:
            raise Unreadable(f"cell {i + 1}: {exc}") from None
        for node in tree.body:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            stmts.append(_Statement(i, first, node.end_lineno or node.lineno, node, frozenset(_binds(node)),
                                    frozenset(_reads(node))))
        if len(stmts) > MAX_STATEMENTS:
            raise Unreadable(f"more than {MAX_STATEMENTS} statements in the notebook's code cells")
    return stmts, notes


def _runs_graded(stmts: list[_Statement], entries: tuple[str, ...]) -> set[str]:
    """The graded names and every definition that reads one of them, however indirectly."""
    readers: dict[str, list[_Statement]] = {}
    for s in stmts:
        if s.kind == "definition":
            for name in s.reads:
                readers.setdefault(name, []).append(s)
    runs: set[str] = set()
    todo = deque(entries)
    while todo:
        name = todo.popleft()
        if name not in runs:
            runs.add(name)
            todo += [b for s in readers.get(name, []) for b in s.binds]
    return runs


def _kept(stmts: list[_Statement], entries: tuple[str, ...]) -> list[bool]:
    """Definitions and `from __future__` always; an import or assignment when kept code reads a name
    it binds, unless it runs the graded names. One pass per name, never per statement."""
    runs = _runs_graded(stmts, entries)
    binders: dict[str, list[int]] = {}
    keep = [False] * len(stmts)
    needed = deque(entries)
    for k, s in enumerate(stmts):
        if s.kind in ("definition", "future"):
            keep[k] = True
            needed += s.reads
        elif s.kind == "import" or (s.kind == "assignment" and not s.reads & runs):
            for name in s.binds:
                binders.setdefault(name, []).append(k)
    seen: set[str] = set()
    while needed:
        name = needed.popleft()
        if name in seen:
            continue
        seen.add(name)
        for k in binders.get(name, []):
            if not keep[k]:
                keep[k] = True
                needed += stmts[k].reads
    return keep


def script_from_cells(cells: list[str], entries: tuple[str, ...] = ENTRY_NAMES) -> Converted:
    cleaned = [_strip_magics(c) for c in cells]
    found = _statements(cleaned, entries)
    if isinstance(found, Converted):
        return found
    stmts, notes = found
    keep = _kept(stmts, entries)
    lines_of = [c.splitlines() for c in cleaned]
    chosen = [s for s, kept in zip(stmts, keep, strict=True) if kept]
    # `from __future__` must come first; each statement keeps its cell and lines through its mark.
    chosen.sort(key=lambda s: s.kind != "future")
    out = [BANNER]
    at: tuple[int, int] | None = None  # (cell, next line) where the script stands
    for s in chosen:
        if at is not None and at[0] == s.cell and 0 <= s.first - at[1] <= _GAP:
            out += [""] * (s.first - at[1])
        else:
            out += ["", f"# cell {s.cell + 1}, line {s.first}"]
        out += lines_of[s.cell][s.first - 1:s.last]
        at = (s.cell, s.last + 1)
    return Converted("\n".join(out) + "\n", notes)
