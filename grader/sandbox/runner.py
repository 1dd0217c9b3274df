"""The child side: import the submission, answer each call with tensors. Runs student code.

Everything here also works in-process for trusted code (the reference catalogue), through
`load_module` and `answer`, so the catalogue is observed through exactly the same lens.
Verdicts are never formed here: a reply only reports what the submission returned or raised.
"""

from __future__ import annotations

import contextlib
import ctypes
import dis
import functools
import importlib.util
import json
import os
import sys
import traceback
import types
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.sandbox import native
from grader.sandbox.wire import Frame, WireError, encode, read_call, write_all, write_frame
from grader.vocabulary import ENTRY_NAMES, FORBIDDEN_API, WRONG_RETURN_TYPE

_MAX_MESSAGE = 600
_MAX_NAME = 80
DEFINED_BYTES = 8 << 10  # the names a submission defines, as JSON, in its 'loaded' frame


class ForbiddenAPIError(RuntimeError):
    """Raised by the tripwires that replace PyTorch's ready-made attention."""


class ReturnContractError(TypeError):
    """The submission returned something other than (out, weights) as plain tensors."""


class LayerShapeError(ValueError):
    """A SingleHead projection whose weight cannot hold the grader's: its own shape is the finding."""


_FORBIDDEN_MARK = "is not allowed here: write the attention computation yourself"
# The ready-made attention operators that ran (were attempted) since the runner last looked.
FUSED_SEEN: list[str] = []
# What the import itself attempted (native code refused at import): reported with every call's reply.
AT_IMPORT: list[str] = []


def _forbid(name: str):
    def tripwire(*args, **kwargs):
        FUSED_SEEN.append(name)
        raise ForbiddenAPIError(f"{name} {_FORBIDDEN_MARK}")

    return tripwire


# Every public and private door to PyTorch's fused attention, not only the documented one.
_FORBIDDEN_PARTS = ("scaled_dot_product", "multi_head_attention_forward")
# At the dispatcher, every operator that computes attention in one piece, whichever door led to it:
# a private module, an operator namespace loaded later, a JIT lookup, a saved builtin.
_FUSED_OPERATOR_PARTS = ("scaled_dot_product", "multi_head_attention", "flash_attention", "efficient_attention",
                         "cudnn_attention", "_transformer_encoder_layer", "_fused_sdp", "_triton_")
# Every CPU backend an operator can have a kernel of its own for, not only plain tensors': native multi-head
# attention has one for nested tensors, reached directly in inference mode (no autograd key dispatched).
_KERNEL_KEYS = ("CPU", "NestedTensorCPU", "QuantizedCPU", "SparseCPU", "SparseCsrCPU", "MkldnnCPU",
                "CompositeImplicitAutograd", "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
                "CompositeExplicitAutogradNonFunctional", "Autograd")


def _doors() -> list[tuple[object, str]]:
    owners = (torch.nn.functional, torch, torch._C._nn, torch.ops.aten)
    doors = [(owner, name) for owner in owners for name in dir(owner)
             if any(part in name for part in _FORBIDDEN_PARTS)]
    return [*doors, (nn.MultiheadAttention, "forward")]


@functools.cache
def fused_operators() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(operator, the dispatch keys it has a kernel for), computed once (in the zygote, before any fork)."""
    names = sorted(n for n in torch._C._dispatch_get_all_op_names()
                   if n.startswith("aten::") and any(p in n for p in _FUSED_OPERATOR_PARTS))
    return tuple((n, tuple(k for k in _KERNEL_KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(n, k)))
                 for n in names)


def _override_kernels():
    """Register a kernel that records and refuses in front of every fused attention operator.
    Returns the registration: dropping it restores PyTorch's own kernels."""
    lib = torch._C._dispatch_library("IMPL", "aten", "", __file__, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel": that is the point
        for name, keys in fused_operators():
            for key in keys:
                lib.impl(name.split("::", 1)[1], key, _forbid(name), False)
    return lib


def _neuter(func: types.FunctionType, name: str) -> None:
    """Turn a Python function into its own tripwire in place, so every reference to it (one a
    gc walk finds, one saved before) records the attempt and raises too. Its globals are torch's:
    the tripwire reaches FUSED_SEEN through sys.modules, with builtins only. A closure's tripwire
    names the same free variables, so it fits the cells the function already holds."""
    if func.__code__.co_filename == "<tripwire>":
        return
    free = func.__code__.co_freevars
    record = f"__import__('sys').modules[{__name__!r}].FUSED_SEEN.append({name!r})"
    body = (f"    def tripwire(*args, **kwargs):\n        {', '.join(free) or 'None'}\n"
            f"        try:\n            {record}\n"
            f"        finally:\n            raise RuntimeError({f'{name} {_FORBIDDEN_MARK}'!r})\n")
    scope: dict[str, Any] = {}
    exec(compile("def outer():\n" + "".join(f"    {v} = None\n" for v in free) + body + "    return tripwire\n",
                 "<tripwire>", "exec"), scope)
    code = scope["outer"]().__code__
    if code.co_freevars != free:
        return  # cannot fit its cells; the attribute doors and the dispatcher still hold
    func.__code__ = code
    func.__defaults__ = func.__kwdefaults__ = None


# A function of torch's that names one of these (an operator, a flavour of fused attention) leads to it.
_LIBRARY_PARTS = (*_FORBIDDEN_PARTS, "flash_attention", "efficient_attention", "cudnn_attention", "flex_attention")
_BINARY_OP = dis.opmap.get("BINARY_OP")
_MATMUL_OPARGS = (4, 17)  # BINARY_OP's `@` and `@=`


def _code_of(func: types.FunctionType) -> tuple[str, list[types.CodeType]]:
    """The names and strings a function's code uses (its nested functions' too, not its docstring)."""
    words, codes, todo = [], [], [func.__code__]
    while todo:
        code = todo.pop()
        codes.append(code)
        words += code.co_names
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                todo.append(const)
            elif isinstance(const, str) and const is not func.__doc__:
                words.append(const)
    return "\0".join(words), codes


def _computes_attention(func: types.FunctionType) -> bool:
    """It names a fused attention operator or flavour, or it takes a softmax and a matrix product
    (matmul, bmm, baddbmm, einsum or `@`): ready-made attention, in Python, out of plain operators."""
    text, codes = _code_of(func)
    if any(part in text for part in _LIBRARY_PARTS):
        return True
    if "softmax" not in text:
        return False
    names = set(text.split("\0"))
    if names & {"matmul", "bmm", "baddbmm", "einsum", "mm"}:
        return True
    return _BINARY_OP is not None and any(
        b[i] == _BINARY_OP and b[i + 1] in _MATMUL_OPARGS for code in codes for b in [code.co_code]
        for i in range(0, len(b) - 1, 2))


def _torch_functions() -> Iterator[types.FunctionType]:
    """Every Python function defined in torch's own files and reachable from an imported torch module:
    module attributes, class attributes (methods, static and class methods, properties), and what
    their decorators wrap. Only dictionaries are read: no attribute lookup runs a module's code."""
    home = os.path.dirname(torch.__file__) + os.sep
    seen: set[int] = set()
    todo: list[Any] = []
    for name, module in list(sys.modules.items()):
        if (name == "torch" or name.startswith("torch.")) and issubclass(type(module), ModuleType):
            todo += list(vars(module).values())
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        kind = type(obj)  # not isinstance: that asks the object for its __class__, running its code
        if kind is staticmethod or kind is classmethod:
            todo.append(obj.__func__)
        elif kind is property:
            todo += [obj.fget, obj.fset, obj.fdel]
        elif kind is functools._lru_cache_wrapper:
            todo.append(obj.__wrapped__)
        elif issubclass(kind, type) and str(type.__dict__["__module__"].__get__(obj)).startswith("torch"):
            todo += list(vars(obj).values())
        elif kind is types.FunctionType:
            todo.append(obj.__dict__.get("__wrapped__"))
            if obj.__code__.co_filename.startswith(home):
                yield obj


def library_attention() -> list[types.FunctionType]:
    """Every attention implementation of the torch this process imported, found by walking its modules
    when the server starts (not a fixed list): the doors to the fused operators, their eager references
    (flex attention's), the quantizable MultiheadAttention's own forward, decompositions, helpers."""
    return sorted((f for f in _torch_functions() if _computes_attention(f)),
                  key=lambda f: (f.__module__ or "", f.__qualname__))


_sealed = False


def seal() -> None:
    """In a child, for good: every door to fused attention raises, and nothing keeps an
    original the submission could find. Builtins are replaced and, below them, the dispatcher's
    kernels are overridden by a registration nothing in Python refers to (held by one leaked
    reference, untracked by gc); Python functions are neutered in place. The warm server seals
    itself once before it forks (`zygote.prepare`), so its children are born sealed."""
    global _sealed
    if _sealed:
        return
    _sealed = True
    for owner, attr in _doors():
        original = getattr(owner, attr)
        label = f"{getattr(owner, '__name__', owner)}.{attr}"
        if isinstance(original, types.FunctionType):
            _neuter(original, label)
        setattr(owner, attr, _forbid(label))
    for func in library_attention():
        _neuter(func, f"{func.__module__}.{func.__qualname__}")
    lib = _override_kernels()
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(lib))  # never released: the override lives as long as the child
    del lib
    native.find_holders()  # once, here: each child then only drops what it names


@contextlib.contextmanager
def tripwires() -> Iterator[None]:
    """The same doors, closed for the duration and restored after: for trusted code run in the
    grader's own process (the catalogue), which must find PyTorch intact afterwards."""
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr in _doors()]
    for owner, attr, _ in saved:
        setattr(owner, attr, _forbid(f"{getattr(owner, '__name__', owner)}.{attr}"))
    lib = _override_kernels()
    try:
        yield
    finally:
        del lib
        for owner, attr, original in saved:
            setattr(owner, attr, original)


def _describe(exc: BaseException) -> dict[str, Any]:
    try:
        message = str(exc)
    except Exception:  # a hostile __str__ must not take the runner down
        message = "<unprintable exception>"
    kind = type(exc).__name__[:_MAX_NAME]
    # The class names of its MRO, so the grader can judge "is a ValueError" as isinstance would.
    mro = [c.__name__[:_MAX_NAME] for c in type(exc).__mro__][:12]
    if isinstance(exc, RuntimeError) and ("allocate" in message or "out of memory" in message):
        kind = "MemoryError"
    if isinstance(exc, ForbiddenAPIError) or _FORBIDDEN_MARK in message:
        kind = FORBIDDEN_API
    if isinstance(exc, ReturnContractError):
        kind = WRONG_RETURN_TYPE
    return {"ok": False, "error_type": kind, "error_message": message[:_MAX_MESSAGE], "error_mro": mro}


def _student_line(exc: BaseException, path: str | None) -> int | None:
    """The line of the submission's innermost frame in the traceback (where its own code raised, even
    inside torch); read from the frames alone, so no source file is opened here."""
    lineno, tb = None, exc.__traceback__
    for _ in range(200):  # a traceback is finite, but a student's recursion can make it long
        if tb is None:
            break
        if path is not None and tb.tb_frame.f_code.co_filename == path:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    return lineno if isinstance(lineno, int) and 1 <= lineno <= 1_000_000 else None  # what ReplyMeta accepts


def load_module(path: str, name: str = "submission") -> tuple[ModuleType | None, Frame]:
    """Import a submission file; return it and the frame that tells the grader how it went."""
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        meta = {"error_type": "SyntaxError", "message": str(exc.msg)[:_MAX_MESSAGE], "lineno": exc.lineno}
        return None, Frame("load_error", meta)
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a verdict, not our exit
        tb = traceback.extract_tb(exc.__traceback__)
        lineno = next((f.lineno for f in reversed(tb) if f.filename == path), None)
        meta = _describe(exc) | {"lineno": lineno}
        meta["message"] = meta.pop("error_message")
        meta.pop("ok")
        return None, Frame("load_error", meta)
    names = [n for n in ENTRY_NAMES if callable(getattr(module, n, None))]
    # Everything callable it does define, so a misspelt name can be pointed out.
    defined, size = [], 0
    for n in sorted(n for n, obj in vars(module).items() if callable(obj) and not n.startswith("_"))[:200]:
        size += len(json.dumps(n[:_MAX_NAME])) + 2
        if size > DEFINED_BYTES:
            break
        defined.append(n[:_MAX_NAME])
    return module, Frame("loaded", {"names": names, "defined": defined})


def _pair(result: Any, lead: tuple[int, ...], T: int, d_v: int) -> tuple[torch.Tensor, torch.Tensor, list[str]]:
    """The contract's return value, (out, weights) as plain tensors, and the slips read through.

    Where the pair can be read one way only, the math is graded through that reading and the slip is
    reported (the grader deducts once for it): a list instead of a tuple, (weights, out) when T != d_v,
    extra leading dimensions of size 1.
    """
    if not isinstance(result, tuple | list) or len(result) != 2:
        what = type(result).__name__
        if isinstance(result, tuple | list):
            what = f"a {what} of {len(result)} items"
        raise ReturnContractError(f"expected a pair (out, weights), got {what}")
    for label, t in zip(("out", "weights"), result, strict=True):
        # Exact type: a subclass could carry a rigged __eq__ or __torch_function__.
        if type(t) is not torch.Tensor:
            raise ReturnContractError(f"{label} should be a torch.Tensor, got {type(t).__name__}")
    slips = ["list"] if isinstance(result, list) else []
    want_out, want_w = (*lead, T, d_v), (*lead, T, T)
    first, second = result
    extra = first.dim() - len(want_out)
    if extra > 0 and second.dim() == first.dim() and all(t.shape[:extra] == (1,) * extra for t in result) and \
            {tuple(first.shape[extra:]), tuple(second.shape[extra:])} == {want_out, want_w}:
        first, second = first.reshape(first.shape[extra:]), second.reshape(second.shape[extra:])
        slips.append("extra_dim")
    if tuple(first.shape) == want_w and tuple(second.shape) == want_out and want_w != want_out:
        first, second = second, first
        slips.append("swapped")
    return first, second, slips


def _lone_out(result: Any, lead: tuple[int, ...], T: int, d_v: int) -> bool:
    """`return out` alone: one plain tensor of the output's shape (..., T, d_v)."""
    return type(result) is torch.Tensor and tuple(result.shape) == (*lead, T, d_v)


def _weights_read(module: ModuleType, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The weights of a `return out` alone, read as what the same function returns for the same queries and keys
    with the identity as values (out = weights @ I = weights), so its math is graded through that reading (the
    reply names the slip, `lone_out`). A reading that fails leaves the slip what it was: no pair returned."""
    n = v.shape[-2]
    eye = torch.eye(n, dtype=v.dtype).expand(*v.shape[:-2], n, n).clone()
    got = module.causal_attention(q, k, eye)
    if type(got) is not torch.Tensor or tuple(got.shape) != (*q.shape[:-2], q.shape[-2], n):
        raise ReturnContractError("expected a pair (out, weights), got Tensor")
    return got


def _backward(out: torch.Tensor, grad_out: torch.Tensor, inputs: dict[str, torch.Tensor]) -> tuple[dict, dict]:
    """Send the grader's upstream gradient back; report which inputs received one."""
    if not out.requires_grad:
        return {}, {"grad": "detached"}
    if out.shape != grad_out.shape:  # the output's shape is the value checks' finding; the product would raise here, in our line
        return {}, {"grad": "shape"}
    grads = torch.autograd.grad((out * grad_out.to(out.dtype)).sum(), list(inputs.values()), allow_unused=True)
    tensors = {f"grad_{n}": g for n, g in zip(inputs, grads, strict=True) if g is not None}
    missing = [n for n, g in zip(inputs, grads, strict=True) if g is None]
    return tensors, {"grad": "ok", "grad_missing": missing}


def _layout(t: torch.Tensor, layout: str | None) -> torch.Tensor:
    """The probe's values in the memory layout it asks for (the values never change)."""
    if layout == "heads_transposed" and t.dim() == 4:
        # (B, H, T, d) as multi-head code makes it: x.view(B, T, H, d).transpose(1, 2), not contiguous.
        return t.transpose(1, 2).contiguous().transpose(1, 2)
    return t.clone()


def _attention(module: ModuleType, call: Frame) -> tuple[dict, dict]:
    q, k, v = (_layout(call.tensors[n], call.meta.get("layout")) for n in "qkv")
    want_grad = "grad_out" in call.tensors
    leaves = {}
    if want_grad:
        # Gradients are taken at leaves the submission never sees: an in-place edit of its inputs is
        # inputs_unchanged's finding, not a crash of the gradient probe.
        leaves = {n: t.requires_grad_(True) for n, t in zip("qkv", (q, k, v), strict=True)}
        q, k, v = (t.clone() for t in leaves.values())
    lead, T = tuple(q.shape[:-2]), q.shape[-2] if q.dim() >= 2 else 0
    result, read = module.causal_attention(q, k, v), []
    if _lone_out(result, lead, T, v.shape[-1] if v.dim() else 0):
        result, read = (result, _weights_read(module, q, k, v)), ["lone_out"]
    out, weights, slips = _pair(result, lead, T, v.shape[-1] if v.dim() else 0)
    slips = read + slips
    tensors = {"out": out.detach(), "weights": weights.detach()}
    meta: dict[str, Any] = {"slips": slips} if slips else {}
    if want_grad:
        if call.meta.get("backward", True):  # a finite-difference step: inputs tracked as its probe's, no backward
            grads, grad_meta = _backward(out, call.tensors["grad_out"], leaves)
            tensors |= grads
            meta |= grad_meta
    else:
        tensors |= {f"{n}_after": t.detach() for n, t in zip("qkv", (q, k, v), strict=True)}
    return tensors, meta


def _head(module: ModuleType, call: Frame) -> tuple[dict, dict]:
    m = call.meta
    head = module.SingleHead(m["n_embd"], m["d_k"], m.get("d_v"))
    if not isinstance(head, nn.Module):
        raise ReturnContractError(f"SingleHead should be an nn.Module, got {type(head).__name__}")
    layers = {}
    for name in ("query", "key", "value"):
        layer = getattr(head, name, None)
        layers[name] = {
            "type": type(layer).__name__,
            "bias": getattr(layer, "bias", None) is not None,
            "shape": list(getattr(getattr(layer, "weight", None), "shape", [])),
        }
    meta: dict[str, Any] = {
        "n_params": sum(p.numel() for p in head.parameters() if p.requires_grad),
        "layers": layers,
    }
    head = head.to(call.tensors["x"].dtype)  # the grader compares in float64, like the chapter's lab
    with torch.no_grad():
        for name in ("query", "key", "value"):
            weight, given = getattr(head, name).weight, call.tensors[f"w_{name}"]
            if weight.shape != given.shape:  # copy_ would raise from the grader's line, not the student's
                raise LayerShapeError(
                    f"SingleHead.{name}.weight has shape {tuple(weight.shape)}, but SingleHead({m['n_embd']}, "
                    f"{m['d_k']}, {m.get('d_v')}) needs {tuple(given.shape)} there: nn.Linear(n_embd, width) "
                    "stores its weight as (width, n_embd)")
            weight.copy_(given)
    x = call.tensors["x"]
    result = head(x.clone())
    if _lone_out(result, tuple(x.shape[:-2]), x.shape[-2], m.get("d_v") or m["d_k"]):
        out, weights, slips = result, None, ["lone_out"]  # its weights stay unknown: the head's checks say so
    else:
        out, weights, slips = _pair(result, tuple(x.shape[:-2]), x.shape[-2], m.get("d_v") or m["d_k"])
    if slips:
        meta["slips"] = slips
    tensors = {"out": out.detach()} | ({"weights": weights.detach()} if weights is not None else {})
    if not call.meta.get("backward", True):
        return tensors, meta
    params = {name: getattr(head, name).weight for name in ("query", "key", "value")}
    grads, grad_meta = _backward(out, call.tensors["grad_out"], params)
    return tensors | grads, meta | grad_meta


_TARGETS = {"attention": _attention, "head": _head}


def answer(module: ModuleType, call: Frame) -> Frame:
    """Run one call against the submission; whatever happens, produce one reply frame."""
    meta: dict[str, Any] = {"id": call.meta.get("id")}
    # A submission that draws random numbers still gets the same report. Only the CPU generator:
    # torch.manual_seed also queues a CUDA seed, formatting the whole stack on every call.
    torch.random.default_generator.manual_seed(0)
    FUSED_SEEN.clear()
    try:
        tensors, extra = _TARGETS[call.meta["target"]](module, call)
        frame = Frame("reply", meta | {"ok": True} | extra, tensors)
    except BaseException as exc:  # noqa: BLE001 - SystemExit inside a call is the student's, not ours
        frame = Frame("reply", meta | _describe(exc))
        lineno = _student_line(exc, getattr(module, "__file__", None))
        if lineno is not None:
            frame.meta["lineno"] = lineno
    if FUSED_SEEN or AT_IMPORT:  # attempted even if it caught the refusal: the attempt is what forbidden_api judges
        frame.meta["fused"] = sorted({*AT_IMPORT, *FUSED_SEEN})[:16]
    return frame


def encoded_answer(module: ModuleType, call: Frame) -> bytes:
    """The reply as wire bytes; a returned dtype the wire cannot carry is the submission's error."""
    reply = answer(module, call)
    try:
        return encode(reply)
    except WireError as exc:
        return encode(Frame("reply", {"id": reply.meta["id"], "ok": False, "error_type": WRONG_RETURN_TYPE,
                                      "error_message": str(exc)}))


def _no_breakpoint(*args: Any, **kwargs: Any) -> None:
    return None


def serve(source_path: str, inbox: int, outbox: int, *, native_lock: bool = True) -> None:
    """Child main loop: seal the doors to fused attention, load, then one reply per call until an `end` frame.
    `native_lock=False` only for tests of the layers below it (the syscall filter, namespaces), whose probes
    make raw system calls through ctypes as native code that got past the lock would."""
    seal()
    if native_lock:
        native.lock(FUSED_SEEN)  # no ctypes, cffi or new library for the submission, from here on
    # A breakpoint() left in does nothing: pdb on a closed stdin only quits. The hook itself, since a server
    # started as `python -I` ignores PYTHONBREAKPOINT.
    sys.breakpointhook = _no_breakpoint
    # Random numbers drawn at import (a leftover self-test that prints them) are the same whichever warm
    # server ran the file, after however many others: a class run's report does not depend on its schedule.
    torch.random.default_generator.manual_seed(0)
    module, loaded = load_module(source_path)
    AT_IMPORT[:] = FUSED_SEEN
    write_frame(outbox, loaded)
    if module is None:
        return
    while True:
        call = read_call(inbox)
        if call.kind == "end":
            return
        write_all(outbox, encoded_answer(module, call))
