"""Check-level fixtures: run small trusted implementations in-process, through the runner's own
lens (runner.answer: the frames a sandboxed child would send), and judge them through `grade`'s own
path (its observations, its check outcomes, its report), so a check test sees what a grade sees."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from grader.checks.observations import Observations
from grader.grade import INSTRUCTOR_RUBRIC, Executed, check_outcomes, default_rubric, judge, observations
from grader.probes import build_probes
from grader.sandbox import RunResult
from grader.sandbox.runner import answer, load_module, tripwires

# A correct head, written for these tests (not the reference); `{SCORES}`, `{MASK}`, `{SOFTMAX}`,
# `{RETURN}` and `{CHECKS}` are the places a test swaps a line.
BASE = '''
import math
import torch
from torch import nn


def causal_attention(q, k, v):
    {CHECKS}
    T = q.shape[-2]
    scores = {SCORES}
    allowed = {MASK}
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = {SOFTMAX}
    out = weights @ v
    return {RETURN}


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
'''
DEFAULTS = {
    "CHECKS": '''if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"need (..., T, d): q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatch: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")''',
    "SCORES": "(q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])",
    "MASK": "torch.ones(T, T, dtype=torch.bool, device=q.device).tril()",
    "SOFTMAX": "torch.softmax(scores, dim=-1)",
    "RETURN": "out, weights",
}


def _head_source(**changes: str) -> str:
    src = BASE
    for key, value in (DEFAULTS | changes).items():
        src = src.replace("{" + key + "}", value)
    return src


@pytest.fixture
def head_source():
    """head_source(SCORES=..., MASK=..., SOFTMAX=..., RETURN=..., CHECKS=...) -> a head's source."""
    return _head_source


@dataclass
class Graded:
    obs: Observations
    outcomes: dict
    score: float
    reports: dict


@pytest.fixture
def grade(tmp_path):
    """grade(source, seed=None) -> outcomes of every check and the instructor rubric's score."""
    counter = iter(range(10_000))

    def run(source: str, seed: int | None = None) -> Graded:
        path = tmp_path / f"sub{next(counter)}.py"
        source = textwrap.dedent(source)  # what the file holds, as grade reads it
        path.write_text(source, encoding="utf-8")
        probes = build_probes(seed)
        with tripwires():
            module, loaded = load_module(str(path), name=f"checks_test_{path.stem}")
            assert module is not None, loaded.meta
            frames = {p.id: answer(module, p.call) for p in probes.probes}
        rubric = default_rubric(INSTRUCTOR_RUBRIC)
        run = RunResult(load=loaded, replies=frames)
        obs = observations(run, probes, source, rubric)
        report = judge(Executed(path, probes, run, source), rubric=rubric, audience="instructor")
        assert report.status != "grader_error", report.error
        return Graded(obs, check_outcomes(obs, rubric), report.score, {c.id: c for c in report.checks})

    return run
