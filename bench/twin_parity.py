"""Does each style twin in tests/real behave as its public counterpart does? (`bench/twin_parity.py DIR`)

DIR is a local folder of the public files in the contract (tests/real/README.md says how to build
one; it never enters the repository). For every twin with a file of the same name in DIR, one child
process imports both and calls causal_attention on the same inputs: 0, 1 and 2 batch dimensions,
T = 1, 4, 6, 7, 9, d_v equal to and different from d_k, float32 and float64, small and large scores.
An outcome is the exception type raised, or the returned shapes, dtype, whether an input changed,
whether anything was printed, and the values (compared for exact equality). A file that fails to
import is compared by the exception its import raises. Prints one line per file and a count.

The children run the public code with this interpreter, not in the grader's sandbox: use it on
files you fetched and read yourself. A script, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TWINS = ROOT / "tests" / "real"
HARNESS = ("test_real.py", "conftest.py")

CHILD = r'''
import contextlib, importlib.util, io, sys, torch

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            spec.loader.exec_module(module)
    except Exception as exc:
        return None, type(exc).__name__, bool(printed.getvalue())
    return module, None, bool(printed.getvalue())

def outcome(module, args):
    copies = [a.clone() for a in args]
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            result = module.causal_attention(*copies)
    except Exception as exc:
        return ("raised", type(exc).__name__), ()
    changed = any(not torch.equal(a, c) for a, c in zip(args, copies))
    parts = tuple(result) if isinstance(result, tuple) else (result,)
    shapes = tuple(tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__ for p in parts)
    tensors = tuple(p for p in parts if isinstance(p, torch.Tensor))
    return ("returned", shapes, tuple(str(t.dtype) for t in tensors), changed, bool(printed.getvalue())), tensors

public, twin = (load(p, f"parity_{i}") for i, p in enumerate(sys.argv[1:3]))
if public[0] is None or twin[0] is None:
    same = public[1:] == twin[1:]
    print(("same" if same else "DIFFERS") + f": import raised {public[1]} / {twin[1]}")
    raise SystemExit(0)
differences, cases = [], 0
if public[2] != twin[2]:
    differences.append(f"prints at import: {public[2]} / {twin[2]}")
g = torch.Generator().manual_seed(0)
for lead in [(), (2,), (2, 3)]:
    for T in [1, 4, 6, 7, 9]:
        for dk, dv in [(2, 2), (4, 3)]:
            for dtype in [torch.float32, torch.float64]:
                for size in [1.0, 300.0]:
                    q = torch.randn(*lead, T, dk, generator=g, dtype=dtype) * size
                    k = torch.randn(*lead, T, dk, generator=g, dtype=dtype)
                    v = torch.randn(*lead, T, dv, generator=g, dtype=dtype)
                    cases += 1
                    (a, ta), (b, tb) = outcome(public[0], (q, k, v)), outcome(twin[0], (q, k, v))
                    where = f"batch {lead}, T={T}, d_k={dk}, d_v={dv}, {dtype}, scores x{size:g}"
                    if a != b:
                        differences.append(f"{where}: {a} / {b}")
                    elif not all(torch.equal(x.nan_to_num(), y.nan_to_num()) and torch.equal(x.isnan(), y.isnan())
                                 for x, y in zip(ta, tb)):
                        differences.append(f"{where}: values differ")
print("same" if not differences else "DIFFERS", f"on {cases} inputs", *differences[:5], sep="; ")
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("public", type=Path, metavar="DIR", help="the local folder of public files")
    args = parser.parse_args()
    if not args.public.is_dir():
        print(f"twin_parity: {args.public}: not a folder", file=sys.stderr)
        return 2
    pairs = [(args.public / t.name, t) for t in sorted(TWINS.glob("*.py")) if t.name not in HARNESS]
    missing = [t.stem for p, t in pairs if not p.is_file()]
    pairs = [(p, t) for p, t in pairs if p.is_file()]
    same = 0
    for public, twin in pairs:
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, str(public), str(twin)],
                              capture_output=True, text=True, timeout=300)
        line = done.stdout.strip() or f"DIFFERS: the comparison itself failed: {done.stderr.strip()[-300:]}"
        same += line.startswith("same")
        print(f"{twin.stem}: {line}")
    if missing:
        print(f"not in {args.public}: {', '.join(missing)}")
    print(f"\n{same}/{len(pairs)} twins behave as their public counterpart")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
