"""The interactive quiz under a real pseudo-terminal (pexpect) and with piped stdin."""

import json
import subprocess
import sys
from pathlib import Path

import pexpect

from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.session import run_session

ROOT = Path(__file__).resolve().parents[2]
FULL_RUN = [
    "Queries and keys set the weights; the values are mixed.",  # what-mixes
    "Row i predicts the next token i+1, and its own token is already known.",  # diagonal
    "A",  # softmax-axis
    "Otherwise softmax becomes too sharp.",  # scaling: one required point missing -> follow-up
    "Because the dot product variance grows with d_k.",  # the follow-up reply
    "weights: 1/3, 1/3, 1/3; output: 8/3, 2",  # zero-queries
    "weights unchanged, first output coordinate +1",  # value-change
    ":s",  # row-sums-vs-causality skipped
    "over positions vs over the vocabulary",  # weights-vs-probabilities
    "",  # explain-it-back: explain, then Enter
    "3",  # self rating
]


def spawn(session: Path, *extra) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "grader", "quiz", "--session", str(session), *extra],
                         cwd=str(ROOT), encoding="utf-8", timeout=20, env={"PATH": "/usr/bin:/bin", "TERM": "dumb"})


def test_tty_session_follow_up_quit_and_resume(tmp_path):
    session = tmp_path / "s.json"
    child = spawn(session)
    child.expect_exact("[1/9] what-mixes")
    child.expect_exact("Your prediction> ")
    child.sendline("the values are what gets mixed")
    child.expect_exact("Verdict: partial")
    child.expect_exact("Follow-up: Which two of the three projections")
    child.sendline("the query and the key")
    child.expect_exact("✓ The weights come from matching queries against keys")
    child.expect_exact("[2/9] diagonal")
    child.expect_exact("Your prediction> ")
    child.sendline(":q")
    child.expect_exact("Saved; run the quiz again to resume.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = json.loads(session.read_text())
    entry = saved["entries"]["what-mixes"]
    assert entry["follow_up_ok"] is True and entry["result"]["verdict"] == "partial"

    child = spawn(session)
    child.expect_exact("Resuming: 1 of 9 items done")
    child.expect_exact("[2/9] diagonal")
    child.sendcontrol("d")  # EOF quits and keeps progress too
    child.expect_exact("Saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_piped_full_run(tmp_path):
    session = tmp_path / "s.json"
    proc = subprocess.run([sys.executable, "-m", "grader", "quiz", "--session", str(session)],
                          input="\n".join(FULL_RUN) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("Follow-up:") == 1
    # Scaling is partial (1 of its 2 required points; optional ones cost nothing since 2026-12-02: 0.29 before);
    # the follow-up teaches but does not rescore.
    assert "Score: 6.5 / 8" in out, out[-800:]
    assert "explain-it-back: got it" in out
    again = subprocess.run([sys.executable, "-m", "grader", "quiz", "--session", str(session)],
                           input="", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "Quiz finished" in again.stdout


def test_at_most_one_follow_up_per_item(tmp_path):
    quiz = load_quiz(DEFAULT_QUIZ)
    replies = iter(["something vague about attention", "still vague", ":q"])
    lines: list[str] = []
    run_session(quiz, tmp_path / "s.json", ask=lambda p: (lines.append(p), next(replies))[1], say=lines.append)
    # what-mixes misses both required points but only one follow-up is asked before moving on.
    assert sum(line.startswith("Follow-up:") for line in lines) == 1
    assert any("[2/9] diagonal" in line for line in lines)


def test_a_choice_answer_that_names_no_option_is_asked_again_not_marked_wrong(tmp_path):
    """Found by a user: 'the last one' was marked incorrect and the answer given away, with no retry."""
    quiz = load_quiz(DEFAULT_QUIZ)
    replies = iter([FULL_RUN[0], FULL_RUN[1], "the last one", "A", ":q"])
    lines: list[str] = []
    run_session(quiz, tmp_path / "s.json", ask=lambda p: next(replies), say=lines.append)
    asked_again = next(i for i, line in enumerate(lines) if "Could not match your answer" in line)
    verdicts = [line for line in lines[asked_again:] if line.startswith("Verdict:")]
    assert verdicts and verdicts[0].startswith("Verdict: correct")  # the retry is what was judged
    saved = json.loads((tmp_path / "s.json").read_text())["entries"]["softmax-axis"]
    assert saved["answer"] == "A"


def test_unreadable_session_is_a_clear_error(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, "-m", "grader", "quiz", "--session", str(bad)],
                          input="", capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "unreadable quiz session" in proc.stderr and "Traceback" not in proc.stderr
