"""Trusted expected values, computed in the grader from PyTorch's own attention in float64.

The weights come from SDPA too: attending over an identity matrix of values returns the weights.
Nothing here is the student's exercise written out, so it may ship to students.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float | None = None):
    q, k, v = q.double(), k.double(), v.double()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.0, scale=scale)
    eye = torch.eye(q.shape[-2], dtype=torch.float64).expand(*q.shape[:-1], q.shape[-2])
    weights = F.scaled_dot_product_attention(q, k, eye, is_causal=True, dropout_p=0.0, scale=scale)
    return out, weights


def unmasked(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The negative control: attention with no mask at all."""
    return F.scaled_dot_product_attention(q.double(), k.double(), v.double(), dropout_p=0.0)


def attention_grads(q, k, v, grad_out) -> dict[str, torch.Tensor]:
    leaves = [t.double().clone().requires_grad_(True) for t in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves, is_causal=True, dropout_p=0.0)
    grads = torch.autograd.grad((out * grad_out.double()).sum(), leaves)
    return dict(zip(("grad_q", "grad_k", "grad_v"), grads, strict=True))


def head(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """SingleHead's expected out, weights and projection gradients for the grader-set weights."""
    x = tensors["x"].double()
    ws = {n: tensors[f"w_{n}"].double().clone().requires_grad_(True) for n in ("query", "key", "value")}
    q, k, v = (x @ ws[n].T for n in ("query", "key", "value"))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.0)
    grads = torch.autograd.grad((out * tensors["grad_out"].double()).sum(), list(ws.values()))
    _, weights = attention(q.detach(), k.detach(), v.detach())
    return {"out": out.detach(), "weights": weights} | {
        f"grad_{n}": g for n, g in zip(ws, grads, strict=True)
    }
