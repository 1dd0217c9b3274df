"""The environment every timed command runs in: the caller's, with modules byte-compiled once into a
scratch folder, as `pip install` leaves an installed package (a checkout run with
PYTHONDONTWRITEBYTECODE would otherwise recompile the grader's modules on every cold start, which
no installed copy does). Nothing is written into the checkout."""

from __future__ import annotations

import os
from pathlib import Path


def installed_like(scratch: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": str(scratch / "pycache")} | extra
