"""How the file failed as a whole: it does not compile or import, a name is missing, a call ran out of
time or memory or ended the process, or a stub is not written yet.
"""

from __future__ import annotations

import ast
import re

from grader.checks.observations import Observations
from grader.diagnosis.evidence.context import Context, Facts, inputs
from grader.probes import Probe
from grader.probes.replies import Reply
from grader.probes.replies import at_line as observed_at_line
from grader.probes.replies import source_line as observed_line
from grader.vocabulary import (
    MEMORY_LIMIT,
    PROCESS_EXIT,
    PROTOCOL_ERROR,
    SUBMISSION_REFUSED,
    TIMEOUT,
    UNREADABLE,
)

# ---------------------------------------------------------------- how the file failed as a whole


def source_line(obs: Observations, lineno: int | None) -> str | None:
    return observed_line(obs.source, lineno)


def at_line(obs: Observations, lineno: int | None) -> str:
    return observed_at_line(obs.source, lineno)


def load_failure(obs: Observations, kinds: tuple[str, ...]) -> Reply | None:
    load = obs.load_error
    return load if load is not None and (load.error_type or "") in kinds else None


def syntax_error(ctx: Context) -> Facts | None:
    load = load_failure(ctx.obs, ("SyntaxError", "IndentationError", "TabError"))
    if load is None:
        return None
    return {"message": (load.error or "invalid syntax").rstrip("."), "where": at_line(ctx.obs, load.lineno)}


_NO_MODULE = re.compile(r"No module named '([^']+)'")
_NO_NAME = re.compile(r"cannot import name '([^']+)' from '([^']+)'")
# Load failures that are a verdict on the process, or not about the code at all.
_NOT_IMPORT = ("SyntaxError", "IndentationError", "TabError", "SystemExit", "MemoryError", TIMEOUT, MEMORY_LIMIT,
               PROCESS_EXIT)


def import_error(ctx: Context) -> Facts | None:
    load = ctx.obs.load_error
    if load is None or (load.error_type or "") in _NOT_IMPORT:
        return None
    where = at_line(ctx.obs, load.lineno)
    message = (load.error or "").rstrip(".")
    if load.error_type in (UNREADABLE, SUBMISSION_REFUSED):
        return {"what": f"The grader could not open your file: {message}."}
    if load.error_type == PROTOCOL_ERROR:
        return {"what": f"Importing your file did not produce a valid reply ({message})."}
    if m := _NO_MODULE.search(message):
        module = m.group(1)
        return {"what": f"Your file imports `{module}`{where}, and no module of that name exists where it is "
                        f"graded (ModuleNotFoundError). Your file is graded on its own: a helper module you wrote "
                        f"must be pasted into it, and only the grading environment's packages can be imported."}
    if m := _NO_NAME.search(message):
        return {"what": f"Your file imports `{m.group(1)}` from `{m.group(2)}`{where}, which does not provide it "
                        f"(ImportError)."}
    return {"what": f"Importing your file raised {load.error_type}{where}: {message}. Code at the top level of the "
                    f"file runs when it is imported, so an error there stops everything."}


def defined_names(obs: Observations) -> list[str]:
    """Top-level functions and classes the source defines (parsed, never run)."""
    try:
        tree = ast.parse(obs.source)
    except SyntaxError:
        return list(obs.defined)
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


def missing_function(ctx: Context) -> Facts | None:
    obs = ctx.obs
    if obs.load_error is not None:
        return None
    missing = [n for n in obs.required if n not in obs.load_names]
    if not missing:
        return None
    import difflib

    defined = defined_names(obs)
    if not obs.source.strip():
        has = "Your file is empty: it defines nothing"
    elif not defined:
        has = "Your file defines no function or class"
    else:
        shown = ", ".join(f"`{n}`" for n in defined[:8]) + (" and more" if len(defined) > 8 else "")
        has = f"Your file defines {shown}"
    hints = []
    for name in missing:
        close = difflib.get_close_matches(name, [d for d in defined if d not in obs.required], n=1)
        hints.append(f"`{name}` (is `{close[0]}` meant to be it?)" if close else f"`{name}`")
    return {"has": has, "missing": " and ".join(hints)}


def _first_failure(ctx: Context, kinds: tuple[str, ...]) -> tuple[Probe, Reply] | None:
    """The first visible call that ended this way by itself (not one skipped after another failed)."""
    for probe in ctx.obs.probes.visible():
        reply = ctx.obs.reply(probe.id)
        if not reply.ok and reply.error_type in kinds and not reply.skipped:
            return probe, reply
    return None


def _during(ctx: Context, kinds: tuple[str, ...]) -> tuple[str, Reply] | None:
    """Where a whole-process failure happened: while importing, or in which call."""
    load = load_failure(ctx.obs, kinds)
    if load is not None:
        return "Importing your file", load
    found = _first_failure(ctx, kinds)
    if found is None:
        return None
    probe, reply = found
    return f"Your {inputs(probe)}", reply


def _detail(reply: Reply) -> str:
    """The sandbox's own words, without the bookkeeping prefix (a skipped call is never quoted)."""
    return (reply.error or "").removeprefix("while importing: ")


def timeout(ctx: Context) -> Facts | None:
    found = _during(ctx, (TIMEOUT,))
    if found is None:
        return None
    who, reply = found
    return {"who": who, "limit": _detail(reply)}


_ALLOCATE = re.compile(r"tried to allocate (\d+) bytes")


def memory_limit(ctx: Context) -> Facts | None:
    found = _during(ctx, (MEMORY_LIMIT, "MemoryError"))
    if found is None:
        return None
    who, reply = found
    if m := _ALLOCATE.search(reply.error or ""):
        size = int(m.group(1))
        limit = f"tried to allocate {size / 2**30:.3g} GiB in one tensor, more than the sandbox allows"
    elif reply.error_type == "MemoryError":
        limit = f"raised MemoryError ({(reply.error or '').strip()[:160]})"
    else:
        limit = f"was stopped: {_detail(reply)}"
    return {"who": who, "limit": limit}


def process_exit(ctx: Context) -> Facts | None:
    load = load_failure(ctx.obs, ("SystemExit", PROCESS_EXIT))
    if load is not None:
        if load.error_type == "SystemExit":
            code = (load.error or "").strip() or "None"
            how = f"called sys.exit({code}){at_line(ctx.obs, load.lineno)}"
        else:
            how = f"ended the process ({_detail(load)})"
        return {"what": f"Importing your file {how}, so the process ended before anything could be checked. "
                        f"Code at the top level runs on import: keep self-tests under "
                        f"`if __name__ == \"__main__\":`."}
    found = _first_failure(ctx, (PROCESS_EXIT, "SystemExit"))
    if found is None:
        return None
    probe, reply = found
    how = "called sys.exit" if reply.error_type == "SystemExit" else f"ended the process ({_detail(reply)})"
    return {"what": f"Your {inputs(probe)} {how} instead of returning."}


def not_implemented(ctx: Context) -> Facts | None:
    """Stubs not written yet, as the reports' TO DO rows read them (Observations.not_written)."""
    if ctx.obs.load_error is not None:
        return None
    stubs = ctx.obs.not_written()
    if "causal_attention" in stubs:
        what = ("Nothing is implemented yet: every call raised NotImplementedError" if "SingleHead" in stubs
                else "causal_attention still raises NotImplementedError")
        return {"what": what, "next": "Start with the scores, S = Q K^T / sqrt(d_k), as in the chapter's Part 2."}
    if "SingleHead" in stubs:
        if _untouched_init(ctx.obs.source):
            return None  # the next task, not begun: its TO DO line says all there is to say
        return {"what": "SingleHead still raises NotImplementedError",
                "next": "It projects x into queries, keys and values with three Linear layers and hands them to your "
                        "causal_attention, as in the chapter's Part 4."}
    return None


def _untouched_init(source: str) -> bool:
    """SingleHead.__init__ still only raises NotImplementedError (the template's stub, not begun)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SingleHead"):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
            body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            return any(isinstance(n, ast.Raise) for n in body) and all(
                isinstance(n, ast.Raise) or (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                                             and "super" in ast.dump(n.value)) for n in body)
    return False
