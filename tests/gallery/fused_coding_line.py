# -*- coding: utf-7 -*-
"""Under a coding line, the static check (reading UTF-8) saw this call as part of a comment;
Python decodes UTF-7 and runs it, through a door the run-time tripwires missed. Expected: the
static check reads what Python runs, and the call is refused at the dispatcher."""


def causal_attention(q, k, v):
    # just a comment +AAo-    return torch._C._VariableFunctions._scaled_dot_product_attention_math(q, k, v, is_causal=True)
    return v, v
