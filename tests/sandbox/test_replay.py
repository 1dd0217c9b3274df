"""The whole gallery in one class run beside honest files (bench/gallery_replay.py): honest files
score full, nothing is left behind, the grader's peak memory stays under 1 GiB."""

from __future__ import annotations

import json
import subprocess
import sys

from sandbox_kit import REPO_ROOT, needs_namespaces


@needs_namespaces
def test_gallery_replay_in_one_class_run():
    # A fresh process, so the peak memory measured is the class run's alone.
    done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "gallery_replay.py"), "--fast", "--json"],
                          capture_output=True, text=True, timeout=900)
    result = json.loads(done.stdout)
    assert result["reports"] == result["files"] and result["hostile"] >= 40
    assert result["honest_not_full"] == [], result["honest_not_full"]
    assert result["grader_errors"] == [], result["grader_errors"]
    assert result["left_behind"] == [], result["left_behind"]
    assert result["peak_rss_mib"] < result["peak_bound_mib"] == 1024
    assert done.returncode == 0, done.stderr[-2000:]
