"""A check that could not run only because a function still raises NotImplementedError says which one
(`CheckOutcome.not_written`); any other error, or a NotImplementedError beside cases that ran, does not."""

from __future__ import annotations

from support.corpora import TEMPLATE

STUB_HEAD = '''
class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        raise NotImplementedError("SingleHead.__init__ is not written yet")

    def forward(self, x):
        raise NotImplementedError("SingleHead.forward is not written yet")
'''


def _with_stub_head(source: str) -> str:
    return source[: source.index("class SingleHead")] + STUB_HEAD


def test_the_untouched_template_waits_for_causal_attention(grade):
    graded = grade(TEMPLATE.read_text())
    assert {cid: o.not_written for cid, o in graded.outcomes.items()} == dict.fromkeys(
        graded.outcomes, ("causal_attention",))
    assert graded.score == 0 and {o.status for o in graded.outcomes.values()} == {"error", "failed"}


def test_a_stub_single_head_waits_only_for_single_head(grade, head_source):
    graded = grade(_with_stub_head(head_source()))
    waiting = {cid: o.not_written for cid, o in graded.outcomes.items() if o.not_written}
    assert waiting == {"single_head": ("SingleHead",), "single_head_gradients": ("SingleHead",)}
    assert all(o.status == "passed" for cid, o in graded.outcomes.items() if cid not in waiting)


def test_other_errors_are_errors(grade, head_source):
    # Not a stub: another exception, or NotImplementedError on some inputs while others ran.
    other = head_source(CHECKS='raise RuntimeError("not written yet")')
    partly = head_source(CHECKS='if q.dtype == torch.float32:\n        raise NotImplementedError("float32 later")')
    for source in (other, partly):
        graded = grade(source)
        assert any(o.status == "error" for o in graded.outcomes.values())
        assert not any(o.not_written for o in graded.outcomes.values())
