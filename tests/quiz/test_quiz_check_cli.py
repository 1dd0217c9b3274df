"""`quiz check ANSWERS.yaml [--json]`: the result shape, and clear exit-2 messages for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, cwd=cwd)


def test_check_json_shape(tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text(
        "what-mixes: Queries and keys set the weights; the values are mixed.\n"
        "softmax-axis: B\n"
        "zero-queries: [0.3333, 0.3333, 0.3333, 2.6667, 2]\n"
        "value-change: The weights stay the same, and the first coordinate goes up by 1.\n"
        "row-sums-vs-causality: If every row sums to one the attention is causal.\n"
        "explain-it-back: I explained it to a friend.\n"
    )
    proc = run("quiz", "check", str(answers), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"items", "score", "max_score"}
    verdicts = {i["id"]: i["verdict"] for i in out["items"]}
    assert verdicts == {
        "what-mixes": "correct", "diagonal": "unanswered", "softmax-axis": "incorrect", "scaling": "unanswered",
        "zero-queries": "correct", "value-change": "correct", "row-sums-vs-causality": "incorrect",
        "weights-vs-probabilities": "unanswered", "explain-it-back": "self",
    }
    for item in out["items"]:
        assert set(item) == {"id", "verdict", "score", "max_score", "feedback", "missing", "matched",
                             "misconceptions", "question"}
    assert out["score"] == 3 and out["max_score"] == 8
    rows = {i["id"]: i for i in out["items"]}
    assert rows["row-sums-vs-causality"]["missing"] == ["sums-insufficient", "intervention", "negative-control"]


def test_check_plain_text(tmp_path):
    answers = tmp_path / "a.yaml"
    answers.write_text("diagonal: The diagonal must be masked or the model sees its own answer.\n")
    proc = run("quiz", "check", str(answers))
    assert proc.returncode == 0
    assert "diagonal: incorrect" in proc.stdout and "does not leak the answer" in proc.stdout


@pytest.mark.parametrize("content,expect", [
    ("not-an-item: hello\n", "unknown item id 'not-an-item'"),
    ("diagnol: hello\n", "unknown item id 'diagnol' (did you mean 'diagonal'?)"),
    ("softmax_axis: hi\nscaling: ok\n", "unknown item id 'softmax_axis' (did you mean 'softmax-axis'?)"),
    ("card-mask-diagonal: hi\n", "is a recall card"),
    ("- just\n- a list\n", "expected a mapping from item id"),
    ("diagonal: [unclosed\n", "a.yaml:2: invalid YAML"),
])
def test_bad_answers_exit_2(tmp_path, content, expect):
    path = tmp_path / "a.yaml"
    path.write_text(content)
    proc = run("quiz", "check", str(path))
    assert proc.returncode == 2
    assert expect in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_answers_file_exit_2(tmp_path):
    proc = run("quiz", "check", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2 and "cannot read answers" in proc.stderr


def test_an_unanswered_item_keeps_its_model_answer_hidden(tmp_path):
    # A learner checked two answers and was shown the model answers of the seven it had not tried: the chapter
    # asks to predict before checking (found walking a student's evening, 2026-12-02).
    answers = tmp_path / "two.yaml"
    answers.write_text("what-mixes: Queries against keys set the weights; the values get mixed.\n"
                       "scaling: The dot product grows with d_k, so we divide to keep it small.\n")
    proc = run("quiz", "check", str(answers))
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.split("\n\n")[0].split("\n")
    unanswered = [line for line in blocks if ": unanswered" in line]
    assert len(unanswered) == 6, proc.stdout  # the self-rated item is not scored
    for model in ("token i+1", "[1/3, 1/3, 1/3]", "33/7", "over the vocabulary", "source-position (key) axis",
                  "26/7, 16/7"):
        assert model not in proc.stdout, model
    assert "Model answer:" in proc.stdout  # the scaling answer is partial: its model answer is shown
    assert "2 of 8 scored items answered" in proc.stdout
