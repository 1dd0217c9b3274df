"""A fork bomb at import, each copy escaping into its own session. Expected: timeout while
loading, every process killed and reaped, and the next submission grades normally."""
import os

while True:
    try:
        if os.fork() == 0:
            os.setsid()
    except OSError:
        pass
