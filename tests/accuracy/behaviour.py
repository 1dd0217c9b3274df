"""What a mutant does, observed in-process without the grader: proves each operator's equivalence claim.

An equivalent rewrite must behave like the base on every probe below (values within float
tolerance, same dtype, same shapes, same errors, same gradients, inputs untouched). A
non-equivalent mutant must differ from the base on at least one of them, otherwise the kill-rate
target would count a mutant no grader could catch. The probes are generic (several lengths, widths,
batch shapes, float32 and float64, large scores, bad shapes); they are not the grader's probes.
"""

from __future__ import annotations

import contextlib
import io
import types

import torch


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, name, "exec"), module.__dict__)  # noqa: S102 - the corpus's own generated code
    return module


def _inputs(seed: int, lead: tuple[int, ...], t: int, d_k: int, d_v: int, dtype: torch.dtype, scale: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*lead, t, d, generator=g, dtype=dtype) * scale for d in (d_k, d_k, d_v))


PROBES = [
    ("flat64", (), 5, 3, 4, torch.float64, 1.0),
    ("batch64", (2,), 6, 4, 3, torch.float64, 1.0),
    ("heads64", (2, 3), 4, 2, 5, torch.float64, 1.0),
    ("batch32", (3,), 5, 3, 2, torch.float32, 1.0),
    ("worked_size", (), 3, 2, 2, torch.float64, 1.0),
    ("large64", (2,), 5, 3, 3, torch.float64, 300.0),  # scores of order 1e5
]

BAD_SHAPES = [
    ("rank1", (3,), (3,), (3,)),
    ("batch_v", (2, 4, 3), (2, 4, 3), (3, 4, 3)),
    ("batch_k", (2, 4, 3), (1, 4, 3), (2, 4, 3)),
    ("length_k", (4, 3), (5, 3), (5, 3)),
    ("width_k", (4, 3), (4, 2), (4, 3)),
]


def observe(module: types.ModuleType) -> dict[str, object]:
    """One record per probe: the returned tensors (or what was raised), dtypes, input changes, gradients."""
    seen: dict[str, object] = {}
    for name, lead, t, d_k, d_v, dtype, scale in PROBES:
        q, k, v = _inputs(len(name) * 7 + t, lead, t, d_k, d_v, dtype, scale)
        before = [x.clone() for x in (q, k, v)]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                result = module.causal_attention(q, k, v)
        except Exception as exc:  # noqa: BLE001 - what a mutant raises is part of its behaviour
            seen[name] = ("raised", type(exc).__name__)
            continue
        changed = any(not torch.equal(a, b) for a, b in zip(before, (q, k, v), strict=True))
        kind = type(result).__name__
        tensors = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        seen[name] = ("returned", kind, changed,
                      tuple(x.detach().clone() if isinstance(x, torch.Tensor) else x for x in tensors))
        seen[name + ".grad"] = _gradients(module, lead, t, d_k, d_v, dtype, seed=len(name))
    for name, *shapes in BAD_SHAPES:
        q, k, v = (torch.randn(*s, dtype=torch.float64) for s in shapes)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                module.causal_attention(q, k, v)
            seen["bad." + name] = "accepted"
        except ValueError:
            seen["bad." + name] = "ValueError"
        except Exception as exc:  # noqa: BLE001
            seen["bad." + name] = type(exc).__name__
    return seen


def _gradients(module, lead, t, d_k, d_v, dtype, seed):
    q, k, v = (x.requires_grad_() for x in _inputs(seed, lead, t, d_k, d_v, dtype))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            result = module.causal_attention(q, k, v)
        out = result[0] if isinstance(result, (tuple, list)) else result
        g = torch.Generator().manual_seed(seed + 1)
        (out * torch.randn(out.shape, generator=g, dtype=out.dtype)).sum().backward()
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__)
    return tuple(None if x.grad is None else x.grad.clone() for x in (q, k, v))


def _same_tensor(a, b) -> bool:
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return a == b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    tol = 1e-9 if a.dtype == torch.float64 else 1e-5
    return bool(torch.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def same(x, y) -> bool:
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
        return _same_tensor(x, y)
    return x == y


def differences(base: dict[str, object], other: dict[str, object]) -> list[str]:
    """The probes on which two observed behaviours differ."""
    return [key for key in base if not same(base[key], other.get(key))]
