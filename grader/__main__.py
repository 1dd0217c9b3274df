import os
import sys

# `python -m grader` puts the current folder first on sys.path. Run from a folder that holds a clone named
# `grader`, that folder shadows the editable install as a namespace package (no __init__.py, every packaged
# file unreachable): the grader imports nothing from where it is run, so it drops that entry and imports itself again.
if getattr(sys.modules.get("grader"), "__file__", None) is None:
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    del sys.modules["grader"]
    import grader  # noqa: F401 - the package itself, now found where it is installed

from grader.cli import run

run()
