"""Returns an object whose __eq__ is always True and that pretends to be a tensor.
Expected: rejected as the wrong return type; no credit."""


class Anything:
    shape = ()
    dtype = None

    def __eq__(self, other):
        return True

    def __getattr__(self, name):
        return lambda *a, **k: self


def causal_attention(q, k, v):
    return Anything(), Anything()
