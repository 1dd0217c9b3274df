"""Files of a student's evening: a catalogued bug in causal_attention while SingleHead is still the
template's stub, as the bundle's README has students write causal_attention first."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.paths import ROOT

MUTANTS = ROOT / "reference" / "mutants"
HEAD_STUB = '''class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        raise NotImplementedError("SingleHead.__init__ is not written yet")

    def forward(self, x):
        raise NotImplementedError("SingleHead.forward is not written yet")
'''


def with_head_stub(source: str) -> str:
    """The same causal_attention, SingleHead put back to the template's stub."""
    return source[:source.index("class SingleHead")] + HEAD_STUB


@pytest.fixture
def evening(tmp_path):
    """write(mutant id, head_stub=True) -> the path of that mutant's file, optionally with the stub head."""
    def write(mutant: str, *, head_stub: bool = True, source: str | None = None) -> Path:
        text = source if source is not None else (MUTANTS / f"{mutant}.py").read_text(encoding="utf-8")
        path = tmp_path / f"{mutant}.py"
        path.write_text(with_head_stub(text) if head_stub else text, encoding="utf-8")
        return path
    return write
