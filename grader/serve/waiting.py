"""Students waiting for their report: a long poll that a worker's word ends at once.

The page's script (and any client) asks `/submissions/ID/wait`; the answer comes when the attempt is
graded or after a bounded wait, so a waiting student costs the server one request every WAIT_S, not a
page every fraction of a second. A worker's word wakes the waiters; the store is read again every
RECHECK_S as well, so a word that never came (a grading from another process, a restart) costs that much."""

from __future__ import annotations

import asyncio
import base64
import hashlib

WAIT_S = 20.0  # a long poll's bound: the page asks again after it (proxies often cut idle requests at 30 s)
RECHECK_S = 1.0
NO_SCRIPT_REFRESH_S = 5  # without JavaScript the page reloads itself this often (a meta refresh)

# The waiting page's script: ask until graded, then reload; a refusal (signed out) reloads to say so,
# a lost connection (the server restarting) asks again a little later.
SCRIPT = """(async () => {
  const url = document.getElementById("waiting").dataset.wait;
  const pause = () => new Promise((done) => setTimeout(done, 5000));
  for (;;) {
    try {
      const r = await fetch(url, {credentials: "same-origin", cache: "no-store"});
      if (!r.ok || (await r.json()).state === "graded") break;
    } catch (err) {
      await pause();
    }
  }
  location.reload();
})();"""
# Allowed by its hash in the page's Content-Security-Policy: no other script runs.
SCRIPT_SRC = "'sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode() + "'"


class Waiting:
    """Who waits for which submission; `graded` may be called from any thread once `bind` has run."""

    def __init__(self) -> None:
        self._events: dict[int, asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def graded(self, submission: int) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake, submission)

    def _wake(self, submission: int) -> None:
        event = self._events.pop(submission, None)
        if event is not None:
            event.set()

    async def until_graded(self, submission: int, seconds: float) -> None:
        """Returns when a worker says `submission` is graded, or after `seconds`."""
        event = self._events.setdefault(submission, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except TimeoutError:
            pass
