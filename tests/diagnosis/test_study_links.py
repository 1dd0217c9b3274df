"""A diagnosis links to the recall cards and quiz items on its idea, as its declaration names them."""

from __future__ import annotations

from grader.report.view import study_text


def test_the_diagnosis_links_to_its_cards(observe, attention):
    from grader.checks.base import CheckOutcome
    from grader.diagnosis.catalogue import Catalogue
    from grader.diagnosis.engine import diagnose

    top = diagnose(observe(lambda q, k, v: attention(q, k, v, fill=0.0)),
                   {"x": CheckOutcome("failed", 0, 1, "")}, Catalogue())[0]
    assert top.id == "zero_fill_mask" and top.cards == ["card-mask-negative-infinity"] and top.quiz == ["zero-queries"]
    assert study_text(top) == ("Practise the idea: recall card card-mask-negative-infinity (`grader cards` shows it "
                               "first); quiz item zero-queries (`grader quiz`).")
