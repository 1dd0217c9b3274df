"""Quiz items and recall cards for the chapter: answer checking, interactive quiz, cards, LMS export."""
