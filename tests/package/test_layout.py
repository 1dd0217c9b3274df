"""The layout instructors asked for: `rubrics/` and `quiz.json` at the top of the checkout are the files
the checkout's grader reads and the files a built wheel ships (mapped into grader/data/ by setup.py)."""

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from grader import paths
from grader.export.wheel import SOURCES, build_wheel

ROOT = Path(__file__).resolve().parents[2]


def test_setup_maps_exactly_the_top_level_data_paths_names():
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    mapped = next(ast.literal_eval(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MAPPED")
    assert tuple(mapped) == paths.TOP_LEVEL_DATA
    assert all(name in SOURCES for name in paths.TOP_LEVEL_DATA)


def test_a_checkout_reads_the_top_level_files():
    assert Path(str(paths.INSTRUCTOR_RUBRIC)) == ROOT / "rubrics" / "causal_attention.yaml"
    assert Path(str(paths.QUIZ)) == ROOT / "quiz.json"
    assert not (ROOT / "grader" / "data" / "rubrics" / "causal_attention.yaml").exists()
    assert not (ROOT / "grader" / "data" / "quiz.json").exists()


def _stage_with_edited_rubric(tmp_path: Path) -> Path:
    stage = tmp_path / "checkout"
    stage.mkdir()
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, stage / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        elif src.exists():
            shutil.copy(src, stage / name)
    rubric = stage / "rubrics" / "causal_attention.yaml"
    text = rubric.read_text(encoding="utf-8")
    assert "\n    points: 15\n" in text  # worked_example's points, the first check
    rubric.write_text(text.replace("\n    points: 15\n", "\n    points: 14\n", 1), encoding="utf-8")
    return stage


def _worked_example_points(env_path: str, cwd: Path) -> str:
    code = ("from grader.paths import INSTRUCTOR_RUBRIC; from grader.rubric import load_rubric; "
            "r = load_rubric(INSTRUCTOR_RUBRIC); print(next(c.points for c in r.checks if c.id == 'worked_example'))")
    env = {**os.environ, "PYTHONPATH": env_path}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_editing_the_top_level_rubric_changes_the_checkout_and_the_built_wheel(tmp_path):
    stage = _stage_with_edited_rubric(tmp_path)
    assert _worked_example_points(str(stage), tmp_path) == "14.0"  # the checkout reads its top-level file
    wheel = build_wheel(tmp_path / "dist", root=stage)
    with zipfile.ZipFile(wheel) as zf:
        shipped = zf.read("grader/data/rubrics/causal_attention.yaml").decode("utf-8")
        assert "grader/data/quiz.json" in zf.namelist()
    assert shipped == (stage / "rubrics" / "causal_attention.yaml").read_text(encoding="utf-8")
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    assert _worked_example_points(str(unpacked), tmp_path) == "14.0"  # and so does the installed copy
