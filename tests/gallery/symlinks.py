"""Plants symlinks in its scratch dir: to the reference, to /etc/shadow, and (path filled in
by the test) to a file of the grader's, hoping the grader reads or cleans through them.
Expected: nothing readable through them; the grader's file survives the cleanup."""
import os

TARGET = ""  # the test writes a directory of the grader's here
REPO = ""  # and the repository root here
links = {"ref": os.path.join(REPO, "reference"), "shadow": "/etc/shadow", "results.json": "/autograder/results/results.json"}
if TARGET:
    links["grader_dir"] = TARGET
for name, target in links.items():
    try:
        os.symlink(target, name)
    except OSError:
        pass
    try:
        if os.path.isdir(name):
            names = os.listdir(name)
            if names:
                print("FOUND", name, names[:3])
        else:
            with open(name) as f:
                text = f.read()
            if text:
                print("FOUND", name, len(text))
    except OSError:
        pass


def causal_attention(q, k, v):
    return v, v
