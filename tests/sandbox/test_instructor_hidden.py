"""Under Gradescope the grader is installed into the venv the child must keep (its interpreter and
torch): the installed package, whose data files hold the instructor rubric, is covered in the
child's new root, though the site-packages around it stays visible."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from grader.paths import ROOT
from grader.sandbox import client, harden

needs_root = pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"),
                                reason="new roots need root on Linux")


def test_an_installed_grader_is_hidden_and_a_checkout_is_hidden_whole(monkeypatch):
    assert str(ROOT) in client._default_hidden()  # this checkout: the whole tree
    # Installed: site-packages holds the package (ROOT plays site-packages here).
    monkeypatch.setattr(client.site, "getsitepackages", lambda: [str(ROOT)])
    hidden = client._default_hidden()
    assert str(ROOT / "grader") in hidden and str(ROOT) not in hidden


def _sees(kept: Path, hidden: list[str], *paths: Path) -> str:
    """In a forked child with a new root keeping `kept`: which of `paths` it can read, as 0/1s."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        seen = b"x"
        try:
            harden.enter_namespaces()
            harden.new_root([str(kept)], own_pids=False, hidden=hidden)
            seen = bytes("".join("1" if _readable(p) else "0" for p in paths), "ascii")
        except BaseException:  # noqa: BLE001 - the parent reads the verdict from the pipe
            pass
        finally:
            os.write(w, seen)
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    return os.read(r, 16).decode()


def _readable(path: Path) -> bool:
    """Its content can be read (a covered file reads as empty, a covered folder holds nothing)."""
    try:
        return path.read_text() != ""
    except OSError:
        return False


@needs_root
def test_hidden_paths_inside_a_kept_one_are_covered(tmp_path):
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip(f"pytest's temporary folder {tmp_path} is not under /tmp")
    if not harden.probe_namespaces(client._keep_paths(), own_pids=False):
        pytest.skip("mount namespaces are not available here")
    venv = tmp_path / "venv"
    package = venv / "site-packages" / "grader"
    (package / "data" / "rubrics").mkdir(parents=True)
    rubric = package / "data" / "rubrics" / "causal_attention.yaml"
    rubric.write_text("hidden: true\n")
    secret = venv / "secret.txt"
    secret.write_text("s3cret")
    torch_file = venv / "site-packages" / "torch.py"
    torch_file.write_text("# what the child needs")
    # The control: kept, all three are readable.
    assert _sees(venv, [], rubric, secret, torch_file) == "111"
    assert _sees(venv, [str(package), str(secret)], rubric, secret, torch_file) == "001"


@pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"), reason="needs the namespace levels")
def test_the_graders_own_data_files_are_not_readable_from_the_child(tmp_path):
    from sandbox_kit import TEST_LIMITS, attention_calls, gallery

    from grader.sandbox import Sandbox

    with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
        res = sb.run(gallery("read_installed_rubric"), attention_calls(1))
    assert "FOUND" not in res.output.replace("NOT FOUND", ""), res.output
    # The control: unisolated, the grader's modules lead straight to the rubric.
    with Sandbox(limits=TEST_LIMITS, quiet=True, isolate=False) as open_sb:
        control = open_sb.run(gallery("read_installed_rubric"), attention_calls(1))
    assert "FOUND INSTRUCTOR_RUBRIC" in control.output.replace("NOT FOUND", ""), control.output
