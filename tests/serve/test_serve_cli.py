"""`python -m grader serve tokens`: one sign-in link per roster student and one for the instructor;
a broken course file stops `serve` with FILE:LINE, and no secret in what it prints."""

from __future__ import annotations

from support.serving import SECRET, STUDENTS, write_course

from grader.cli import main
from grader.serve.tokens import INSTRUCTOR, Who, token_for


def test_tokens_prints_one_link_per_student_and_the_instructors(course_path, capsys):
    assert main(["serve", "tokens", "--course", str(course_path), "--base-url", "https://course.example"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == len(STUDENTS) + 1
    assert lines[0] == f"instructor\thttps://course.example/sign-in?token={token_for(SECRET, INSTRUCTOR)}"
    for line, (key, name) in zip(lines[1:], STUDENTS.items(), strict=True):
        assert line == f"{key}\t{name}\thttps://course.example/sign-in?token={token_for(SECRET, Who('student', key))}"
    assert SECRET not in out + err


def test_a_broken_course_file_is_exit_2_with_its_line(tmp_path, capsys):
    path = write_course(tmp_path, max_upload_kb="lots")
    assert main(["serve", "--course", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:8:16: max_upload_kb: must be a whole number, got text 'lots'" in err
    assert main(["serve", "tokens", "--course", str(path)]) == 2


def test_a_missing_secret_file_is_named_and_nothing_is_served(tmp_path, capsys):
    path = write_course(tmp_path)
    (tmp_path / "secret.txt").unlink()
    assert main(["serve", "tokens", "--course", str(path)]) == 2
    assert "secret.txt: cannot read the secret" in capsys.readouterr().err


def test_lti_key_files_that_cannot_be_read_stop_the_start_with_their_names(tmp_path, capsys):
    import json

    lti = {"issuer": "https://lms.example", "client_id": "1", "deployment_ids": ["d"],
           "auth_login_url": "https://lms.example/auth", "auth_token_url": "https://lms.example/token",
           "key_set": "platform.jwks", "tool_key": "tool.pem", "redirect_uri": "https://g.example/lti/launch"}
    path = write_course(tmp_path, lti=json.dumps(lti))
    (tmp_path / "platform.jwks").write_text('{"keys": []}')
    assert main(["serve", "--course", str(path)]) == 2
    assert "platform.jwks: not the platform's key set" in capsys.readouterr().err
