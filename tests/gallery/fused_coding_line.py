# -*- coding: utf-7 -*-
"""Under a coding line, the static check (reading UTF-8) saw these calls as part of a comment;
Python decodes UTF-7 and runs them. Expected: the static check reads what Python runs, and
the calls are refused at run time."""
import torch


def eye(q):
    T = q.shape[-2]
    return torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)


def causal_attention(q, k, v):
    # just a comment +AAo-    return F.scaled_dot_product_attention(q, k, v, is_causal=True), F.scaled_dot_product_attention(q, k, eye(q), is_causal=True)
    return v, v
