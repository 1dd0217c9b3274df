"""The fingerprint file: only what matching needs, written atomically, never rewritten by tests or release."""

from __future__ import annotations

import hashlib
import json
import stat

import pytest
from support.catalogue_noise import stale

from grader import cli
from grader.diagnosis import catalogue
from grader.diagnosis.fingerprint import match_fraction, observe_file
from grader.probes import visible_probes


def digest() -> str:
    return hashlib.sha256(catalogue.DATA.read_bytes()).hexdigest()


def test_shipped_fingerprints_are_compact():
    text = catalogue.DATA.read_text()
    assert len(text) < 300_000
    data = json.loads(text)
    assert set(data) == {"fingerprints"}  # numbers only: titles and messages live in the declarations
    for fingerprint in data["fingerprints"].values():
        for value in fingerprint.values():
            if isinstance(value, dict):
                assert len(value["data"]) <= catalogue.SAMPLE
                # Already at the matcher's precision: rounding again changes nothing.
                assert all(float(f"{x:.{catalogue.DIGITS}g}") == x for x in value["data"] if isinstance(x, float))


def test_a_mutant_still_matches_its_compacted_fingerprint():
    seen = observe_file(catalogue.MUTANTS / "zero_fill_mask.py", visible_probes())
    shipped = catalogue.load().fingerprints
    assert match_fraction(seen, shipped["zero_fill_mask"]) == 1.0
    assert match_fraction(seen, shipped["no_mask"]) < 0.75


def test_write_is_atomic_and_goes_where_it_is_told(tmp_path):
    before = digest()
    path = catalogue.write(tmp_path / "catalogue.json")
    differ = stale(json.loads(path.read_text()), json.loads(catalogue.DATA.read_text()))
    assert not differ, f"grader/data/catalogue.json is stale: {differ[:5]}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["catalogue.json"]  # no temporary left behind
    assert digest() == before


def test_catalogue_refuses_without_the_mutants(tmp_path, monkeypatch, capsys):
    before = digest()
    monkeypatch.setattr(catalogue, "MUTANTS", tmp_path / "mutants")
    with pytest.raises(catalogue.CatalogueSourceMissing):
        catalogue.build()
    assert cli.main(["catalogue"]) == 2
    err = capsys.readouterr().err
    assert "mutants" in err and "Traceback" not in err
    assert digest() == before



@pytest.mark.parametrize("seed", range(8))
def test_a_fingerprint_match_stops_once_the_keys_left_cannot_reach_the_threshold_with_the_same_answer(seed):
    """`reaches` is `match_fraction(...) >= threshold` exactly (hits over keys, the same division), and a
    fingerprint missed at its first keys is not read to its end (a regrade compares every entry)."""
    import random

    from grader.diagnosis.fingerprint import Sample, StudentVector

    rng = random.Random(seed)
    n = rng.randint(1, 40)
    fingerprint = tuple((f"k{i}", Sample((1,), 1, (float(i),)) if rng.random() < 0.5 else i) for i in range(n))
    vector = {f"k{i}": ((1,), [float(i)]) if isinstance(e, Sample) else i for i, (_, e) in enumerate(fingerprint)
              if rng.random() < rng.choice((0.2, 0.75, 0.9, 1.0))}
    for threshold in (0.0, 0.5, 0.75, 0.8, 1.0):
        assert StudentVector(vector).reaches(fingerprint, threshold) == (
            StudentVector(vector).match_fraction(fingerprint) >= threshold)
    assert StudentVector(vector).reaches((), 0.75) is False
    read = []
    student = StudentVector({})
    student.same = lambda key, expected: read.append(key) or False
    assert not student.reaches(tuple((f"k{i}", i) for i in range(40)), 0.75)
    assert len(read) == 11  # 11 misses of 40 leave at most 29/40 < 0.75


def test_a_submissions_tensors_are_read_out_for_fingerprints_only_when_first_compared():
    """Early-stopped matches leave most keys unread: their values are not turned into floats for nothing,
    and a key that is compared gives the same answer as one read out at once."""
    import torch

    from grader.diagnosis.fingerprint import Sample, StudentVector

    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float32)
    reply = type("R", (), {"ok": True, "error_type": None, "tensors": {"out": t, "weights": t * 2}, "meta": None})()
    lazy = StudentVector.of_replies({"p": reply}, keys={"p:out", "p:weights"})
    assert isinstance(lazy.vector["p:weights"][1], torch.Tensor)  # not read out yet
    assert lazy.same("p:out", Sample((2, 2), 2, (1.0, 3.0))) and not lazy.same("p:out", Sample((2, 2), 1, (1.0,) * 4))
    assert lazy.same("p:weights", Sample((2, 2), 1, (2.0, 4.0, 6.0, 8.0)))
    assert isinstance(lazy.vector["p:weights"][1], list)


def test_the_staleness_reading_tells_float32_noise_from_a_changed_catalogue():
    shipped = json.loads(catalogue.DATA.read_text())
    name, fingerprint = next(iter(shipped["fingerprints"].items()))
    key = next(k for k, v in fingerprint.items() if isinstance(v, dict) and any(isinstance(x, float) and x for x in v["data"]))
    i = next(i for i, x in enumerate(fingerprint[key]["data"]) if isinstance(x, float) and x)

    def moved(by: float) -> dict:
        copy = json.loads(json.dumps(shipped))
        copy["fingerprints"][name][key]["data"][i] *= 1 + by
        return copy

    assert stale(moved(4e-7), shipped) == []  # a last-digit difference of another CPU
    assert stale(moved(1e-4), shipped)  # a changed number
    copy = json.loads(json.dumps(shipped))
    del copy["fingerprints"][name]
    assert stale(copy, shipped)  # a mutant gone
