"""ctypes' types found without any import or module, through object.__subclasses__(), then a foreign
function made from them and called (libc's getpid through a pointer read from memory). Expected: the
call is refused (every foreign call and every read from an address is audited); the walk's name is
read in the source, so forbidden_api fails and no check pays."""
import torch


def _types():
    todo, found = list(object.__subclasses__()), {}
    while todo:
        cls = todo.pop()
        found.setdefault(cls.__name__, cls)
        try:
            todo += type.__subclasses__(cls)
        except TypeError:
            pass
    return found


def causal_attention(q, k, v):
    try:
        found = _types()
        cdll = found["CDLL"]  # ctypes.CDLL, a plain class: its dlopen goes through _ctypes
        print("NATIVE", cdll(None).getpid())
    except Exception as exc:  # noqa: BLE001
        print("REFUSED", type(exc).__name__, str(exc)[:80])
    T = q.shape[-2]
    return v.clone(), torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T).clone()
