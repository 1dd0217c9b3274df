"""What leaves the instructor's machine: the project's wheel and the Gradescope autograder zip."""
