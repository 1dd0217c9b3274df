"""Importing the grader, and checking code from a notebook, change nothing global in the
student's session: torch's threads, matplotlib's backend, warnings filters, random states.

Each run is a fresh interpreter that first sets every one of these to something the grader
would not choose, so a grader that sets its own preference is caught."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SESSION = textwrap.dedent('''
    import json, random, sys, warnings

    import matplotlib
    import numpy as np
    import torch

    matplotlib.use("svg")
    torch.set_num_threads(2)
    warnings.simplefilter("default")
    random.seed(1)
    np.random.seed(2)
    torch.manual_seed(3)

    def state():
        return {
            "threads": torch.get_num_threads(),
            "backend": dict.__getitem__(matplotlib.rcParams, "backend"),
            "rc": {k: str(v) for k, v in matplotlib.rcParams.items()} == RC,
            "warnings": [repr(f) for f in warnings.filters],
            "random": random.getstate()[1][:8],
            "numpy": np.random.get_state()[1][:8].tolist(),
            "torch": torch.get_rng_state()[:64].tolist(),
            "grad": torch.is_grad_enabled(),
            "dtype": str(torch.get_default_dtype()),
        }

    RC = {k: str(v) for k, v in matplotlib.rcParams.items()}

    def causal_attention(q, k, v):
        d_k = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / d_k ** 0.5
        t = q.shape[-2]
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return weights @ v, weights

    states = {"before": state()}
    import grader
    states["import grader"] = state()
    from grader import check
    states["from grader import check"] = state()
    result = check(causal_attention)
    html = result._repr_html_()
    states["check()"] = state()
    print(json.dumps({"states": states, "html": len(html), "summary": repr(result)}))
''')


def test_import_and_check_leave_the_session_alone(tmp_path):
    script = tmp_path / "session.py"
    script.write_text(SESSION)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADER_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["html"] > 1000 and "check:" in found["summary"], found["summary"]
    states = found["states"]
    before = states.pop("before")
    assert before["threads"] == 2 and before["backend"] == "svg" and before["rc"]
    for moment, state in states.items():
        for key, value in before.items():
            assert state[key] == value, f"{key} changed at {moment}: {value!r} -> {state[key]!r}"
