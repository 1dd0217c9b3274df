"""Patches torch's comparison functions so every check "passes", then returns garbage.
Expected: the grader's torch is untouched (separate process); no credit."""
import torch

torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
torch.Tensor.__eq__ = lambda self, other: True


def causal_attention(q, k, v):
    return torch.zeros_like(v), torch.zeros(q.shape[:-1] + (q.shape[-2],))
