"""Reads the instructor rubric wherever the grader keeps it: through the grader's own modules
(already imported in the child), which name its packaged data files, as an installed wheel has
them in the autograder's venv. Expected: nothing readable (FOUND never printed); graded on its
fallback (v, v) like any other file."""
import os
import sys

paths = sys.modules.get("grader.paths")
if paths is not None:
    for name in ("INSTRUCTOR_RUBRIC", "CATALOGUE", "QUIZ"):
        try:
            text = paths.__dict__[name].read_text()
            print("FOUND", name, len(text))
        except (OSError, KeyError) as exc:
            print("NOT FOUND", name, type(exc).__name__)
    home = os.path.dirname(paths.__file__)
    try:
        print("FOUND package files", sorted(os.listdir(home))[:5])
    except OSError as exc:
        print("NOT FOUND package", type(exc).__name__)


def causal_attention(q, k, v):
    return v, v
