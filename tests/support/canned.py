"""The canned-answer attack made real at test time: tests/gallery/canned_answers.py with its table
filled from the public probes, the results taken from PyTorch's SDPA in float64 (probes.expected),
never from the reference."""

from __future__ import annotations

import hashlib
from pathlib import Path

from grader.probes import expected, visible_probes

GALLERY = Path(__file__).resolve().parents[1] / "gallery"


def _key(q, k, v) -> str:  # the gallery file's own key
    return hashlib.sha256(repr([t.detach().double().tolist() for t in (q, k, v)]).encode()).hexdigest()


def canned_source(name: str = "canned_answers") -> str:
    """The gallery file `name` (canned_answers, canned_causal_mean) with its table filled."""
    answers = {}
    for probe in visible_probes():
        if probe.call.meta.get("target") != "attention" or not {"q", "k", "v"} <= probe.t.keys():
            continue
        q, k, v = probe.t["q"], probe.t["k"], probe.t["v"]
        if q.dim() < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
            continue  # a probe of mismatched shapes: the file refuses it like any correct one
        out, weights = expected.attention(q, k, v)
        answers[_key(q, k, v)] = (out.tolist(), weights.tolist())
    return (GALLERY / f"{name}.py").read_text().replace("ANSWERS: dict = {}", f"ANSWERS: dict = {answers!r}")
