"""Build step only: map the top-level files an instructor edits (rubrics/, quiz.json) into the package.

A checkout reads them where they are (grader/paths.py); a wheel or `pip install .` carries them as
package data under grader/data/, found through importlib.resources. Everything else is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
MAPPED = ("rubrics", "quiz.json")  # grader.paths.TOP_LEVEL_DATA: kept equal by tests/package/test_layout.py


class BuildWithTopLevelData(build_py):
    def run(self):
        super().run()
        data = Path(self.build_lib) / "grader" / "data"
        for name in MAPPED:
            source = HERE / name
            if source.is_dir():
                for path in sorted(source.glob("*.yaml")):
                    (data / name).mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, data / name / path.name)
            elif source.is_file():
                data.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, data / name)


setup(cmdclass={"build_py": BuildWithTopLevelData})
