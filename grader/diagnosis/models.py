"""What a diagnosis tells a student: one misconception, named in the submission's own numbers."""

from __future__ import annotations

from pydantic import Field

from grader.vocabulary import Model


class Diagnosis(Model):
    id: str
    title: str
    message: str
    section: str
    cards: list[str] = Field([], description="Recall cards on this misconception's idea (ids in quiz.json): "
                                            "`grader cards` reviews them first.")
    quiz: list[str] = Field([], description="Quiz items on the same idea (ids in quiz.json).")
