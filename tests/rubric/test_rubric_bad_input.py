"""Every kind of bad rubric gives FILE:LINE:COLUMN: message naming the key, exit 2, no traceback."""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import pytest

from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import RubricError, load_rubric, register

VALID = """\
assignment_id: demo
title: Demo
# what a submission must define follows from the checks
secret_env: GRADER_SECRET
checks:
  - id: return_contract
    points: 3
  - id: worked_example
    points: 10
    requires: [return_contract]
"""


def validate(tmp_path: Path, text: str | bytes, capsys) -> tuple[int, str, str]:
    path = tmp_path / "rubric.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    parser = argparse.ArgumentParser(prog="grader")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rubric", "validate", str(path)])
    rc = args.func(args)
    out, err = capsys.readouterr()
    return rc, out, err.replace(str(path), "FILE")


def test_valid_minimal_rubric_passes(tmp_path, capsys):
    rc, out, err = validate(tmp_path, VALID, capsys)
    assert (rc, err) == (0, "")
    assert "ok" in out and "13 points" in out


# (rubric text, exact "LINE:COLUMN: message-start", a fragment the message must contain)
CASES = {
    "unknown check id": (
        VALID.replace("id: worked_example", "id: worked_exampel"),
        "8:9: checks[1] (worked_exampel).id: unknown check id 'worked_exampel'",
        "did you mean 'worked_example'?",
    ),
    "unknown id in requires": (
        VALID.replace("requires: [return_contract]", "requires: [return_contrct]"),
        "10:16: checks[1] (worked_example).requires[0]: unknown check id",
        "did you mean 'return_contract'?",
    ),
    "negative points": (
        VALID.replace("points: 3", "points: -3"),
        "7:13: checks[0] (return_contract).points: must be >= 0",
        "got -3",
    ),
    "non-numeric points": (
        VALID.replace("points: 3", "points: three"),
        "7:13: checks[0] (return_contract).points: must be a number",
        "'three'",
    ),
    "boolean points": (
        VALID.replace("points: 3", "points: yes"),
        "7:13: checks[0] (return_contract).points: must be a number",
        "True",
    ),
    "infinite points": (
        VALID.replace("points: 3", "points: .inf"),
        "7:13: checks[0] (return_contract).points: must be a finite number",
        "inf",
    ),
    "unknown visibility": (
        VALID.replace("points: 3", "points: 3\n    visibility: secret"),
        "8:17: checks[0] (return_contract).visibility: unknown value 'secret'",
        "after_due_date",
    ),
    "misspelt visibility": (
        VALID.replace("points: 3", "points: 3\n    visibility: hiden"),
        "8:17: checks[0] (return_contract).visibility:",
        "did you mean 'hidden'?",
    ),
    "unknown partial credit": (
        VALID.replace("points: 3", "points: 3\n    partial_credit: half"),
        "8:21: checks[0] (return_contract).partial_credit: unknown value 'half'",
        "fraction, all_or_nothing",
    ),
    "requires cycle": (
        VALID.replace("points: 3", "points: 3\n    requires: [worked_example]"),
        "11:16: checks[1] (worked_example).requires[0]: requires cycle:",
        "return_contract -> worked_example -> return_contract",
    ),
    "requires itself": (
        VALID.replace("requires: [return_contract]", "requires: [worked_example]"),
        "10:16: checks[1] (worked_example).requires[0]: check 'worked_example' requires itself",
        "",
    ),
    "requires a check the rubric lacks": (
        VALID.replace("requires: [return_contract]", "requires: [single_head]"),
        "10:16: checks[1] (worked_example).requires[0]: requires 'single_head'",
        "this rubric does not include",
    ),
    "duplicate check ids": (
        VALID + "  - id: return_contract\n    points: 1\n",
        "11:9: checks[2] (return_contract).id: duplicate check id 'return_contract'",
        "already checks[0]",
    ),
    "duplicate keys": (
        VALID.replace("points: 3", "points: 3\n    points: 4"),
        "8:5: duplicate key 'points'",
        "already at line 7",
    ),
    "unknown key": (
        VALID.replace("points: 3", "pionts: 3"),
        "7:5: checks[0] (return_contract).pionts: unknown key",
        "did you mean 'points'?",
    ),
    "missing key": (
        VALID.replace("    points: 3\n", ""),
        "6:5: checks[0] (return_contract).points: required key is missing",
        "",
    ),
    "missing top-level key": (
        VALID.replace("secret_env: GRADER_SECRET\n", ""),
        "1:1: secret_env: required key is missing",
        "",
    ),
    "no checks": (
        VALID.split("checks:")[0] + "checks: []\n",
        "5:9: checks: must not be empty",
        "",
    ),
    "checks is not a list": (
        VALID.split("checks:")[0] + "checks: worked_example\n",
        "5:9: checks: must be a list",
        "",
    ),
    "tab indentation": (
        VALID.replace("    points: 3", "\tpoints: 3"),
        "7:1: tab character in indentation",
        "spaces",
    ),
    "invalid YAML": (
        VALID.replace("requires: [return_contract]", "requires: [return_contract"),
        "11:1: invalid YAML:",
        "flow sequence",
    ),
    "two documents": (
        VALID + "---\ntitle: again\n",
        "11:1: invalid YAML:",
        "single document",
    ),
    "empty file": ("", "1:1: the rubric is empty", ""),
    "only comments": ("# nothing here\n\n", "1:1: the rubric is empty", ""),
    "a list, not a mapping": ("- id: worked_example\n", "1:1: the rubric must be a mapping", "not a list"),
    "a scalar, not a mapping": ("just words\n", "1:1: the rubric must be a mapping", "not a text"),
    "YAML 1.1 exponent": (
        VALID.replace("checks:", "tolerances:\n  float64: {atol: 1e-12, rtol: 1.0e-10}\nchecks:"),
        "6:19: tolerances.float64.atol: must be a number",
        "1.0e-12",
    ),
    "unknown dtype": (
        VALID.replace("checks:", "tolerances:\n  float8: {atol: 1.0, rtol: 1.0}\nchecks:"),
        "6:3: tolerances.float8: unknown value 'float8'",
        "float64",
    ),
    "retired forbidden_apis": (
        VALID.replace("checks:", "forbidden_apis: [torch.nn.functional.scaled_dot_product_attention]\nchecks:"),
        "5:1: forbidden_apis: forbidden_apis is no longer a rubric key",
        "trips every door",
    ),
    "retired entry_points": (
        VALID.replace("checks:", "entry_points: {module: attention, functions: [causal_attention]}\nchecks:"),
        "5:1: entry_points: entry_points is no longer a rubric key",
        "the checks name what they call",
    ),
    "hint for a finding the check does not report": (
        VALID.replace("points: 3", "points: 3\n    hints: [{text: 'Look at the mask.', when: [above]}]"),
        "8:",
        "return_contract reports no finding 'above'; it reports: crash",
    ),
    "band for a finding the check does not report": (
        VALID.replace("points: 3", "points: 3\n    ceiling: 0.5\n    ceiling_when: [above]"),
        "9:",
        "return_contract reports no finding 'above'; it reports: crash",
    ),
    "ceiling_when without a ceiling": (
        VALID.replace("points: 3", "points: 3\n    ceiling_when: [above]"),
        "8:",
        "ceiling_when without a ceiling",
    ),
    "empty hint": (
        VALID.replace("points: 3", "points: 3\n    hints: ['']"),
        "8:13: checks[0] (return_contract).hints[0]: must be non-empty text",
        "",
    ),
    "recursive alias": (VALID + "extra: &a [*a]\n", "11:8: recursive alias", ""),
    "absurdly deep nesting": ("a: " + "[" * 3000 + "]" * 3000 + "\n", "1:", "nest"),
    "not UTF-8": (VALID.encode() + b"\xff\xfe", "1:1: not UTF-8 text", ""),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_rubric_is_located_with_exit_2(tmp_path, capsys, case):
    text, located, fragment = CASES[case]
    rc, out, err = validate(tmp_path, text, capsys)
    assert rc == 2, out
    assert "Traceback" not in err
    assert f"FILE:{located}" in err, err
    assert fragment in err
    for line in err.splitlines():
        assert re.match(r"FILE:\d+:\d+: \S", line), line


@pytest.mark.parametrize("case", ["invalid YAML", "two documents", "duplicate keys", "recursive alias", "unknown check id"])
def test_pure_python_yaml_gives_the_same_locations(tmp_path, capsys, monkeypatch, case):
    """Without libyaml the loader falls back to PyYAML's own parser; positions must not move."""
    import yaml

    from grader.rubric import load

    monkeypatch.setattr(load, "_Loader", yaml.SafeLoader)
    text, located, fragment = CASES[case]
    rc, _, err = validate(tmp_path, text, capsys)
    assert rc == 2 and f"FILE:{located}" in err and fragment in err, err


def test_every_problem_is_reported_in_file_order(tmp_path, capsys):
    text = VALID.replace("points: 3", "points: -3\n    visibility: secret").replace("id: worked_example", "id: nope")
    rc, _, err = validate(tmp_path, text, capsys)
    lines = err.splitlines()
    assert rc == 2 and len(lines) == 3
    positions = [tuple(map(int, line.split(":")[1:3])) for line in lines]
    assert positions == sorted(positions)


def test_missing_file_and_directory(tmp_path, capsys):
    for path in (tmp_path / "absent.yaml", tmp_path):
        with pytest.raises(RubricError) as info:
            load_rubric(path)
        assert info.value.problems[0].startswith(f"{path}:1:1: cannot read the rubric")


def test_one_bad_file_among_good_ones_exits_2(tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(VALID)
    bad = tmp_path / "bad.yaml"
    bad.write_text("[]\n")
    parser = argparse.ArgumentParser(prog="grader")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rubric", "validate", str(good), str(bad)])
    assert args.func(args) == 2
    out, err = capsys.readouterr()
    assert f"{good}: ok" in out and err.startswith(f"{bad}:1:1:")


def test_damaged_shipped_rubric_never_raises_anything_else():
    """Truncations and byte deletions of the real rubric either load or raise RubricError."""
    text = INSTRUCTOR_RUBRIC.read_text()
    rng = random.Random(0)
    variants = [text[:cut] for cut in range(0, len(text), 251)]
    for _ in range(60):
        start = rng.randrange(len(text))
        variants.append(text[:start] + text[start + rng.randrange(1, 12):])
    original = {c.id for c in load_rubric_text(text).checks}
    rejected = {"cut": 0, "deleted": 0}
    for n, variant in enumerate(variants):
        try:
            loaded = load_rubric_text(variant)
        except RubricError as err:
            rejected["cut" if n < len(variants) - 60 else "deleted"] += 1
            assert all(re.match(r"x\.yaml:\d+:\d+: \S", p) for p in err.problems), err.problems
        else:
            # A cut rubric may legitimately load with fewer checks; damage never invents one.
            assert {c.id for c in loaded.checks} <= original
    # The damage reaches the loader: both kinds of damage are refused somewhere.
    assert rejected["cut"] > 0 and rejected["deleted"] > 0, rejected


def load_rubric_text(text: str):
    from grader.rubric import parse_rubric

    return parse_rubric(text, "x.yaml")


def test_command_line_exit_status_and_no_traceback(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text(VALID.replace("points: 3", "points: -3"))
    good = INSTRUCTOR_RUBRIC
    run = subprocess.run(
        [sys.executable, "-m", "grader", "rubric", "validate", str(good), str(bad)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr == f"{bad}:7:13: checks[0] (return_contract).points: must be >= 0, got -3\n"
    assert f"{good}: ok" in run.stdout


def test_a_longer_cycle_is_named_in_order_from_the_first_check():
    from grader.rubric import parse_rubric

    text = VALID.replace("points: 3", "points: 3\n    requires: [mask_structure]") + (
        "  - id: mask_structure\n    points: 1\n    requires: [worked_example]\n")
    with pytest.raises(RubricError) as err:
        parse_rubric(text, "x.yaml")
    assert err.value.problems == [
        "x.yaml:11:16: checks[1] (worked_example).requires[0]: requires cycle: return_contract -> mask_structure "
        "-> worked_example -> return_contract; no order can run these checks"]
