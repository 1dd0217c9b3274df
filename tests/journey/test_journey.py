"""The journey corpus (tests/journey/README.md, frozen before any tuning): a student's evening, one
change a save, replayed through `check` in order with one hint state, as one student lives it.

Each step's report must lead with the expected headline (the first diagnosis, or none), be clean
exactly when the corpus says so, and never say a phrase the corpus lists as false for that file, in
what the terminal prints. Every step must hold. The expectations are never edited to match the grader;
the five corrected after freezing say why beside them (tests/journey/expected.yaml).
"""

from __future__ import annotations

import pytest
from journey.replay import HERE, STEPS, disagreements, replay


@pytest.fixture(scope="module")
def evening(sandbox, tmp_path_factory):
    return replay(tmp_path_factory.mktemp("evening"), sandbox=sandbox)


def test_the_corpus_is_an_evening():
    assert len(STEPS) >= 30 and [s["step"] for s in STEPS] == list(range(1, len(STEPS) + 1))
    assert all((HERE / f"step{s['step']:02d}.py").is_file() for s in STEPS)


@pytest.mark.parametrize("step", [pytest.param(s, id=f"step{s['step']:02d}") for s in STEPS])
def test_each_step_is_told_truly(evening, step):
    report, out = evening[step["step"]]
    assert not disagreements(step, report, out), (step["change"], disagreements(step, report, out), out)
