"""A submission's `tempfile` writes into its own scratch area (TMPDIR), whatever the grader's process had
cached before the child was forked from it.

Found when a gallery test failed alone and passed in a full run: the child inherits `tempfile.tempdir`
from the process it is forked from; where that process had already asked for its temporary folder
(pytest does, as does any library), the child's mkdtemp went to its private /tmp (mode 755, not the
slot user's) and raised PermissionError instead of using TMPDIR."""

from __future__ import annotations

import tempfile

from sandbox_kit import attention_calls, needs_namespaces

USES_TEMPFILE = '''
import os
import tempfile

def causal_attention(q, k, v):
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "note.txt"), "w") as f:
        f.write("x")
    print("TEMP", folder == os.path.join(os.environ["TMPDIR"], os.path.basename(folder)))
    return v, v
'''


@needs_namespaces
def test_tempfile_in_the_child_follows_its_tmpdir(sandbox, tmp_path):
    assert tempfile.gettempdir()  # the grader's process has its own folder cached, as pytest's has
    path = tmp_path / "uses_tempfile.py"
    path.write_text(USES_TEMPFILE)
    res = sandbox.run(path, attention_calls(1))
    assert "TEMP True" in res.output, res.output
