"""The evidence readers, one module per part of the chapter, keep one namespace: no module's name
hides a reader of the same name (`ev.sizes` is the helper, never the module)."""

from __future__ import annotations

import importlib
import pkgutil
import types

from grader.diagnosis import evidence as ev


def test_every_name_of_the_readers_namespace_is_a_reader_not_a_module():
    for info in pkgutil.iter_modules(ev.__path__):
        importlib.import_module(f"{ev.__name__}.{info.name}")  # importing a submodule sets it on the package
    hidden = [n for n in ev.__all__ if isinstance(getattr(ev, n), types.ModuleType)]
    assert not hidden, f"a module of grader/diagnosis/evidence/ hides the reader(s) {hidden}"
    assert callable(ev.sizes) and callable(ev.weights) and ev.PROBE == "_probe"
