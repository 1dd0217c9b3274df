"""No native code for the submission: ctypes, cffi, new native libraries and new interpreters are refused in the child.

Native code called from Python can undo every refusal the child holds (the dispatcher's, the
neutered functions) and call torch's C++ attention kernels directly, none of which the grader
could see. So a child, right before the submission is imported, locks itself (`lock`):
- ctypes, `_ctypes`, cffi and the subinterpreter modules leave `sys.modules` and every loaded
  module's namespace (torch's, numpy's, ours), so `import ctypes` goes to the import system;
- an audit hook (PEP 578: `sys.addaudithook`, which no Python code can remove) refuses the
  import of any of them, every ctypes event (a library opened, a symbol looked up, a foreign
  call, memory read from an address), a new interpreter (a subinterpreter's own hooks would
  be empty), and a function's code swapped (the hook's own included); its code reads only its
  arguments and its constants, so nothing the submission can reach changes what it refuses;
  a refused import raises ModuleNotFoundError and is recorded unless an installed library's own
  file made it (a library that copes without ctypes goes on);
- `torch.ops.load_library` and `torch.classes.load_library` are tripwires.
A library of the submission's own never loads either way: the scratch areas are mounted noexec
(`harden.new_root`) and `memfd_create` is refused (`syscalls.REFUSED`). Each refusal is recorded like a fused operator (`runner.FUSED_SEEN`), so `forbidden_api` names it.

Why not deny an executable mapping in the syscall filter instead: `dlopen` of any extension
module maps code (an honest `import numpy.linalg` or a stdlib module not loaded yet), and
libraries already loaded (libtorch) need no new mapping at all. What stays open: ctypes' data
types are still reachable as objects (`object.__subclasses__()`), and a union of an integer and a
pointer reads and writes memory without any audited event; `forbidden_api` reads those names in
the source (`grader.checks.native`) and then no check credits the file. Standard library only.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import types

# The modules that reach native code from Python, by their top-level name.
MODULES = ("ctypes", "_ctypes", "cffi", "_cffi_backend", "_xxsubinterpreters", "_xxinterpchannels", "_interpreters",
           "_testcapi", "_testinternalcapi", "_testmultiphase", "_testsinglephase")
MARK = "is not allowed here: native code is refused in the sandbox; write the attention computation in PyTorch"

# Compiled once per child, run by every audited event. Constants only: no global the submission could rebind
# (builtins reached for recording may be, which only loses the record, never the refusal).
# A refused import raises ModuleNotFoundError, as the module's absence would: a library that tries one and copes
# without it (dateutil's Windows time zones, reached by `import matplotlib.pyplot`) goes on as on a machine
# without it. The import statement nearest the event decides whether it is recorded: in one of the installed
# libraries' own files (importlib's machinery skipped) it is theirs, and costs the file nothing; anywhere else
# (the submission, an exec'd string) it is the submission's, and `forbidden_api` names it.
_HOOK = """
def native_code_refused(event, args):
    if event.startswith("ctypes.") or event == "cpython.PyInterpreterState_New":
        what, refusal = event, RuntimeError
    elif event == "import" and "".join((args[0],)).partition(".")[0] in {modules!r}:
        what, refusal = "import " + "".join((args[0],)), ModuleNotFoundError
    elif event == "object.__setattr__" and args[1:2] == ("__code__",):
        what, refusal = "a function's code replaced", RuntimeError
    else:
        return
    try:
        if refusal is ModuleNotFoundError:
            frame = __import__("sys")._getframe(1)
            while frame is not None and "".join((frame.f_code.co_filename,)).startswith({machinery!r}):
                frame = frame.f_back
            if frame is not None and "".join((frame.f_code.co_filename,)).startswith({libraries!r}):
                return
        __import__("sys").modules["grader.sandbox.runner"].FUSED_SEEN.append("native code: " + what)
    finally:
        raise refusal(what + " {mark}")
"""
# "".join((name,)) is the name as an exact str: a str subclass's own partition or __eq__ decides nothing.

_locked = False


def _hook() -> types.FunctionType:
    paths = sysconfig.get_paths()
    libraries = tuple(sorted({os.path.join(paths[key], "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}))
    machinery = ("<frozen importlib.", os.path.join(paths["stdlib"], "importlib", ""))
    scope: dict = {}
    code = _HOOK.format(modules=MODULES, machinery=machinery, libraries=libraries, mark=MARK)
    exec(compile(code, "<native-code-lock>", "exec"), scope)
    return scope["native_code_refused"]


_HOLDERS: list[tuple[dict, str]] | None = None  # (a namespace, a name in it) that holds a native module


def find_holders() -> None:
    """Where the native modules are held, found once in the server (`runner.seal`): a child that read every
    module's namespace itself would touch the reference count of every object, copying the whole heap."""
    global _HOLDERS
    gone = {id(m) for name, m in sys.modules.items() if name.partition(".")[0] in MODULES}
    holders = [(sys.modules, name) for name in sys.modules if name.partition(".")[0] in MODULES]
    for module in list(sys.modules.values()):
        try:
            names = vars(module)
        except TypeError:
            continue
        holders += [(names, attr) for attr, value in list(names.items()) if id(value) in gone]
    _HOLDERS = holders


def _scrub() -> None:
    """Out of sys.modules and out of every module's namespace: what is left is only an object graph."""
    if _HOLDERS is None:
        find_holders()
    for names, attr in _HOLDERS:
        names.pop(attr, None)


def _forbid_loading(record: list[str]) -> None:
    """torch's doors to a new native library, each a tripwire (the hook would refuse its dlopen anyway)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    owners = [(type(getattr(torch, "ops", None)), "torch.ops.load_library"),
              (type(getattr(torch, "classes", None)), "torch.classes.load_library")]
    for owner, label in owners:
        if owner is not type(None) and "load_library" in vars(owner):
            def tripwire(*args, _label=label, **kwargs):
                record.append(f"native code: {_label}")
                raise RuntimeError(f"{_label} {MARK}")

            owner.load_library = tripwire


def lock(record: list[str]) -> None:
    """In a child, for good, after everything of ours that needs ctypes has run (the filter, the prctls)."""
    global _locked
    if _locked:
        return
    _locked = True
    _forbid_loading(record)
    harden = sys.modules.get("grader.sandbox.harden")
    if harden is not None:
        harden._libc = None  # its handle would lead back to ctypes' types
    _scrub()
    sys.addaudithook(_hook())
