"""A shipped catalogue against one built here, allowing the last-digit noise of float32 between CPUs."""

from __future__ import annotations

# float32 results differ in their last bits between CPUs (seen: 3 of the file's numbers, by at most 4e-7 of
# their size, on an AVX2-only machine against the AVX-512 one that wrote it): the same catalogue, not stale.
SAME_ON_ANOTHER_CPU = 2e-6


def stale(fresh: dict, shipped: dict, rel: float = SAME_ON_ANOTHER_CPU) -> list[str]:
    """Where two catalogues differ beyond float32 noise: every key, shape and label the same, every number within `rel`."""
    if isinstance(fresh, dict) and isinstance(shipped, dict):
        if set(fresh) != set(shipped):
            return [f"keys {sorted(set(fresh) ^ set(shipped))}"]
        return [f"{k}: {d}" for k in fresh for d in stale(fresh[k], shipped[k], rel)]
    if isinstance(fresh, list) and isinstance(shipped, list):
        if len(fresh) != len(shipped):
            return [f"{len(fresh)} items, not {len(shipped)}"]
        return [f"[{i}] {d}" for i, (a, b) in enumerate(zip(fresh, shipped, strict=True)) for d in stale(a, b, rel)]
    if isinstance(fresh, float) or isinstance(shipped, float):
        ok = isinstance(fresh, int | float) and isinstance(shipped, int | float) and \
            abs(fresh - shipped) <= rel * max(abs(fresh), abs(shipped))
        return [] if ok else [f"{fresh} != {shipped}"]
    return [] if fresh == shipped else [f"{fresh!r} != {shipped!r}"]
