"""Writes a perfect results.json wherever a grader might read one: cwd, its parent,
/autograder/results/, and the working directory of every process it can see.
Expected: none of it reaches the grader; the report says what the submission computed."""
import json
import os

FORGED = json.dumps({"score": 100, "tests": [{"score": 100, "max_score": 100}]})
targets = ["results.json", "../results.json", "/autograder/results/results.json"]
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            targets.append(os.path.join(os.readlink(f"/proc/{pid}/cwd"), "results.json"))
        except OSError:
            pass
for path in targets:
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(FORGED)
        print("WROTE", os.path.abspath(path))
    except OSError:
        pass


def causal_attention(q, k, v):
    return v, v
