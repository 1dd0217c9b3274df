"""Returns a tensor subclass whose comparisons always say equal. Expected: rejected as the
wrong return type (the runner accepts plain torch.Tensor only); no credit."""
import torch


class Liar(torch.Tensor):
    def __eq__(self, other):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True


def causal_attention(q, k, v):
    return torch.zeros_like(v).as_subclass(Liar), torch.zeros(q.shape[:-1] + (q.shape[-2],)).as_subclass(Liar)
