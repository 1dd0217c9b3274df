"""Similar submissions: names, comments and layout do not hide a copy; a different solution is not flagged."""

from __future__ import annotations

from grader.batch.similarity import normalise, similar_pairs

DISGUISED = '''
"""My own work, honestly."""
import math
import torch


def causal_attention(query, key, value):
    # compute scores
    d = query.shape[-1]
    s = query @ key.transpose(-2, -1) / math.sqrt(d)
    t = s.shape[-1]
    m = torch.ones(t, t, dtype=torch.bool, device=s.device).tril()
    s = s.masked_fill(~m, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ value, w
'''

RENAMED = DISGUISED.replace("query", "qq").replace("key", "kk").replace("value", "vv").replace("    # compute scores\n", "")
REFORMATTED = DISGUISED.replace("s = query @ key.transpose(-2, -1) / math.sqrt(d)",
                                "s = (query @ key.transpose(-2, -1)) / math.sqrt(\n        d\n    )  # scaled")

DIFFERENT = '''
import torch


def causal_attention(q, k, v):
    t = q.shape[-2]
    rows = []
    for i in range(t):
        scores = (q[..., i:i + 1, :] * k[..., : i + 1, :]).sum(-1) / q.shape[-1] ** 0.5
        weights = scores.softmax(-1)
        rows.append(weights)
    full = torch.zeros(*q.shape[:-1], t, dtype=q.dtype)
    for i, w in enumerate(rows):
        full[..., i, : i + 1] = w
    return full @ v, full
'''


def test_renaming_comments_and_layout_change_nothing():
    assert normalise(DISGUISED) == normalise(RENAMED) == normalise(REFORMATTED)
    assert normalise(DISGUISED) != normalise(DIFFERENT)
    assert normalise("def broken(:\n") is None


def test_pairs_name_the_copies_and_leave_the_rest():
    pairs = similar_pairs({"alice": DISGUISED, "bob": RENAMED, "carol": DIFFERENT, "dan": "def broken(:\n",
                           "erin": REFORMATTED})
    assert [(p.students, p.identical, p.similarity) for p in pairs] == [(["alice", "bob", "erin"], True, 1.0)]


def test_a_near_copy_is_listed_as_near():
    near = DISGUISED.replace("    return w @ value, w\n", "    out = w @ value\n    return out, w\n")
    pairs = similar_pairs({"alice": DISGUISED, "bob": near, "carol": DIFFERENT}, near=0.6)
    assert [(p.students, p.identical) for p in pairs] == [(["alice", "bob"], False)]
    assert 0.6 <= pairs[0].similarity < 1
    assert similar_pairs({"alice": DISGUISED, "carol": DIFFERENT}) == []
