import sys

from grader.quiz.cli import main

sys.exit(main())
