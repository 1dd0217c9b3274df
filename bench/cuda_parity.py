"""SDPA parity on CUDA in float16 / bfloat16 / float32, for a session that has a GPU.

Compares the reference `causal_attention` and PyTorch's own fused SDPA on the GPU with a float64
CPU reference, and prints the largest differences against the dtype's tolerance. It says so and
exits 0 where there is no CUDA device: nothing in the grader depends on a GPU.

    python bench/cuda_parity.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
# torch.testing.assert_close defaults per dtype.
TOLERANCE = {torch.float16: (1e-5, 1e-3), torch.bfloat16: (1e-5, 1.6e-2), torch.float32: (1e-5, 1.3e-6)}


def reference():
    spec = importlib.util.spec_from_file_location("reference_attention", ROOT / "reference" / "attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.causal_attention


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to measure (the grader runs on the CPU)")
        return 0
    causal_attention = reference()
    gen = torch.Generator().manual_seed(0)
    failures = 0
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for shape in ((2, 4, 16, 8), (3, 64, 32), (1, 2, 128, 64)):
        q, k, v = (torch.randn(*shape, generator=gen, dtype=torch.float64) for _ in range(3))
        want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        for dtype, (atol, rtol) in TOLERANCE.items():
            cq, ck, cv = (t.to("cuda", dtype) for t in (q, k, v))
            ours, _ = causal_attention(cq, ck, cv)
            fused = F.scaled_dot_product_attention(cq, ck, cv, is_causal=True, dropout_p=0.0)
            for name, got in (("reference", ours), ("fused SDPA", fused)):
                diff = (got.double().cpu() - want).abs()
                allowed = atol + rtol * want.abs()
                ok = bool((diff <= allowed).all()) and got.dtype == dtype
                failures += not ok
                print(f"{str(shape):16s} {str(dtype):15s} {name:10s} max|diff| {diff.max().item():.3e} "
                      f"dtype kept {got.dtype == dtype}  {'ok' if ok else 'OUTSIDE tolerance'}")
    # Outside the float16/bfloat16 defaults is expected for long rows: rounding grows with T. Informational.
    print(f"{failures} comparisons outside torch.testing's default tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
