"""Students read nothing that is not theirs: reports are 0600, and a child sees none of the
grader's folders, not even their names in the mount table."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from sandbox_kit import REFERENCE, TEST_LIMITS, gallery, needs_namespaces

from grader.batch.run import grade_files
from grader.cli import main
from grader.sandbox import Sandbox

LOOK = (
    "import os\n"
    "print('MOUNTS', open('/proc/self/mountinfo').read().replace(chr(10), ' | '))\n"
    "for p in {paths!r}:\n"
    "    print('SEES' if os.path.exists(p) else 'NOPE', p)\n"
    "def causal_attention(q, k, v):\n    return v, v\n"
)


@needs_namespaces
def test_no_folder_of_the_grader_is_visible_or_named():
    # Outside /tmp (which every level makes private): a class run used to hide these folders by
    # covering each one, and the mount table then listed every name it covered.
    base = Path(os.path.realpath("/var/tmp")) / f"grader-test-private-{os.getpid()}"
    classroom, out, rubric_dir = base / "classroom-alice-bob", base / "results-of-the-class", base / "rubric-dir"
    try:
        for d in (classroom, out, rubric_dir):
            d.mkdir(parents=True)
        os.chmod(base, 0o755)
        (classroom / "bob.py").write_text(REFERENCE.read_text())
        (out / "alice.json").write_text("{}")
        metadata = base / "autograder" / "submission_metadata.yml"
        metadata.parent.mkdir()
        metadata.write_text("users: [{email: bob@example.org}]\n")
        targets = [str(p) for p in (classroom / "bob.py", out / "alice.json", rubric_dir, metadata, REFERENCE)]
        alice = classroom / "alice.py"
        alice.write_text(LOOK.format(paths=targets))
        with Sandbox(limits=TEST_LIMITS, quiet=True) as sb:
            report = grade_files([alice, classroom / "bob.py"], sandboxes=[sb])[0]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    output = report.runtime.output
    assert "MOUNTS" in output and all(f"NOPE {p}" in output for p in targets), output
    mounts = output.split("MOUNTS", 1)[1].split("NOPE", 1)[0]
    for name in ("classroom-alice-bob", "results-of-the-class", "rubric-dir", "autograder", str(base)):
        assert name not in mounts, f"the mount table names {name}"


def test_reports_are_written_for_their_owner_only(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_DATA_DIR", str(tmp_path / "data"))
    html, md, gs = tmp_path / "r.html", tmp_path / "r.md", tmp_path / "gs" / "results.json"
    assert main(["check", str(gallery("exit_in_call")), "--html", str(html), "--markdown", str(md)]) == 0
    assert main(["grade", str(gallery("exit_in_call")), "--gradescope", str(gs)]) == 0
    for path in (html, md, gs):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
