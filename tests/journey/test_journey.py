"""The journey corpus (tests/journey/README.md, frozen before any tuning): a student's evening, one
change a save, replayed through `check` in order with one hint state, as one student lives it.

Each step's report must lead with the expected headline (the first diagnosis, or none), be clean
exactly when the corpus says so, and never say a phrase the corpus lists as false for that file, in
what the terminal prints. The expectations are never edited here; a step that fails for a part of
issue 19 not yet built is marked with that part.
"""

from __future__ import annotations

import pytest
from journey.replay import HERE, STEPS, disagreements, replay

# Steps that fail for a part of issue 19 that this branch does not build, by that part.
PENDING = {
    1: "issue 19 item 2 (false sentences): the zero fill's worked example says 'its scores are scaled differently'",
    4: "issue 19 item 2 (every sentence true): a ValueError without the shapes is not diagnosed as no_shape_validation",
    16: "issue 19 item 7 (notebooks graded on definitions): a notebook export's top-level check(...) cell",
    17: "issue 19 item 7 (notebooks graded on definitions): a notebook export's top-level check(...) cell",
    18: "issue 19 item 7 (notebooks graded on definitions): an unguarded test cell raising at import",
    19: "issue 19 item 7 (notebooks graded on definitions): an unguarded test cell raising at import",
    31: "issue 19 item 2 (head_wiring before detached_graph when the projections are miswired)",
    37: "issue 19 item 7 (notebooks graded on definitions): a notebook export's top-level check(...) cell",
}


@pytest.fixture(scope="module")
def evening(sandbox, tmp_path_factory):
    return replay(tmp_path_factory.mktemp("evening"), sandbox=sandbox)


def test_the_corpus_is_an_evening():
    assert len(STEPS) >= 30 and [s["step"] for s in STEPS] == list(range(1, len(STEPS) + 1))
    assert all((HERE / f"step{s['step']:02d}.py").is_file() for s in STEPS)


@pytest.mark.parametrize("step", [pytest.param(s, id=f"step{s['step']:02d}", marks=[pytest.mark.xfail(
    reason=PENDING[s["step"]], strict=False)] if s["step"] in PENDING else []) for s in STEPS])
def test_each_step_is_told_truly(evening, step):
    report, out = evening[step["step"]]
    assert not disagreements(step, report, out), (step["change"], disagreements(step, report, out), out)
