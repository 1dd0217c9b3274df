"""`python -m grader`. Python puts the current folder first on sys.path for `-m`: run from a folder of
student files, their `argparse.py` would be imported by the grader itself (as whoever runs it, with the
secret in its environment). It is dropped before anything else is imported, as `-P` would do."""

import os
import sys

here = os.getcwd()
if not sys.flags.safe_path:
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
# Run from a folder that holds a clone named `grader`, that folder was already imported as a namespace
# package (no __init__.py, every packaged file unreachable): import the package again from where it is installed.
if getattr(sys.modules.get("grader"), "__file__", None) is None:
    del sys.modules["grader"]
    import grader  # noqa: F401 - the package itself

from grader.cli import run  # noqa: E402 - only once the current folder is off the path

run()
