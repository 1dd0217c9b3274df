"""`python -m grader`. Python puts the current folder first on sys.path for `-m`: run from a folder of
student files, their `argparse.py` would be imported by the grader itself (as whoever runs it, with the
secret in its environment). It is dropped before anything else is imported, as `-P` would do."""

import os
import sys

if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from grader.cli import run  # noqa: E402 - only once the current folder is off the path

run()
