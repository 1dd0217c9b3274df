"""Generated files in the tree must match what their generators produce now."""

from __future__ import annotations

import json

import pytest
from support.catalogue_noise import stale

from grader import schemas
from grader.diagnosis import catalogue


@pytest.mark.parametrize("name", list(schemas.models()))
def test_schema_is_current(name):
    path = schemas.path_of(name)
    assert path.exists(), f"run `python -m grader schemas` to create {path}"
    assert path.read_text() == schemas.schema_text(schemas.models()[name], name), \
        f"{path} is stale: run `python -m grader schemas`"


def test_shipped_catalogue_matches_the_mutants_and_probes():
    shipped = json.loads(catalogue.DATA.read_text())
    differ = stale(json.loads(catalogue.dumps(catalogue.build())), shipped)
    assert not differ, f"grader/data/catalogue.json is stale: run `python -m grader catalogue` ({differ[:3]})"
