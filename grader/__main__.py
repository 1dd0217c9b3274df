import atexit
import os
import sys

from grader.cli import main

code = main()
# The command is done: flush, run the exit handlers (a notebook sandbox's close, logging), and
# leave without the interpreter's teardown of torch's modules, which costs a cold run about as
# much as grading one file and changes nothing anyone can see.
atexit._run_exitfuncs()
try:
    sys.stdout.flush()
    sys.stderr.flush()
except (BrokenPipeError, ValueError):  # a reader that went away (`| head`): nothing left to tell it
    code = code or 1
os._exit(code)
