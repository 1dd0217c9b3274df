"""quiz.json: the nine items and the cards exist, validate against the published schema, and bad files
give FILE:LINE messages, never tracebacks."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.quiz.load import DEFAULT_QUIZ, QuizFileError, load_quiz
from grader.schemas import path_of

SCHEMA_PATH = path_of("quiz")

ROOT = Path(__file__).resolve().parents[2]
ITEM_IDS = [
    "what-mixes", "diagonal", "softmax-axis", "scaling", "zero-queries", "value-change",
    "row-sums-vs-causality", "weights-vs-probabilities", "explain-it-back",
]


def test_quiz_has_the_chapter_items_and_cards():
    quiz = load_quiz(DEFAULT_QUIZ)
    assert [i.id for i in quiz.items] == ITEM_IDS
    assert {i.type for i in quiz.items} == {"numeric", "choice", "concepts", "self"}
    value_change = quiz.item("value-change")
    assert value_change.type == "numeric" and value_change.key_points, "value-change combines numbers and words"
    topics = {c.topic for c in quiz.cards}
    assert {"mechanism", "mask", "value separation", "causality test"} <= topics
    assert all(c.id.startswith("card-") for c in quiz.cards)


def test_quiz_json_validates_against_published_schema():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(DEFAULT_QUIZ.read_text()), schema)


def test_schema_rejects_what_models_reject():
    # Negative control: the schema is not vacuous.
    data = json.loads(DEFAULT_QUIZ.read_text())
    data["items"][0]["type"] = "essay"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))


def _broken(tmp_path, edit) -> str:
    text = DEFAULT_QUIZ.read_text()
    path = tmp_path / "quiz.json"
    path.write_text(edit(text))
    with pytest.raises(QuizFileError) as err:
        load_quiz(path)
    return str(err.value)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_bad_value_reports_its_line(tmp_path):
    text = DEFAULT_QUIZ.read_text()
    needle = '"atol": 0.005'
    msg = _broken(tmp_path, lambda t: t.replace(needle, '"atol": -1', 1))
    assert msg.startswith(f"quiz.json:{_line_of(text, needle)}: items[4].targets[0].atol"), msg


def test_bad_phrasing_reports_its_line(tmp_path):
    text = DEFAULT_QUIZ.read_text()
    needle = '"nan|nans"'
    msg = _broken(tmp_path, lambda t: t.replace(needle, '"re:nan(("', 1))
    assert msg.startswith(f"quiz.json:{_line_of(text, needle)}: "), msg
    assert "bad regular expression" in msg


def test_json_syntax_error_reports_its_line(tmp_path):
    text = DEFAULT_QUIZ.read_text()
    needle = '"section": "Explain it back",'
    msg = _broken(tmp_path, lambda t: t.replace(needle, needle.rstrip(","), 1))
    # json reports the missing comma where the next key starts: one line further down.
    assert msg.startswith(f"quiz.json:{_line_of(text, needle) + 1}: invalid JSON"), msg


def test_duplicate_ids_and_missing_fields(tmp_path):
    msg = _broken(tmp_path, lambda t: t.replace('"id": "scaling"', '"id": "diagonal"', 1))
    assert "duplicate ids: diagonal" in msg and msg.startswith("quiz.json:")
    msg = _broken(tmp_path, lambda t: t.replace('"feedback": "Say what gets mixed', '"feedbak": "Say what gets mixed', 1))
    assert "Field required" in msg or "Extra inputs" in msg


def test_cli_malformed_quiz_exits_2_without_traceback(tmp_path):
    bad = tmp_path / "quiz.json"
    bad.write_text('{"chapter": "x",\n "title": "t",\n "items": 3}\n')
    proc = subprocess.run([sys.executable, "-m", "grader", "quiz", "--quiz", str(bad), "export",
                           "--format", "gift", "--out", str(tmp_path / "q.gift")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert "quiz.json:3: items: Input should be a valid list" in proc.stderr
    assert "Traceback" not in proc.stderr
