"""sys.exit(0) at import, hoping a zero exit status reads as success. Expected: load_error, no credit."""
import sys

sys.exit(0)
