"""The floor of the desk's first paint: a minimal Textual app, timed from this process's start.

Run as a child process by ``bench/bench_sync.py``, interleaved with the desk's
own child (``bench_sync_tui.py``) in the same rounds: a header, a table and a
footer, headless at the desk's size, and ``time.time()`` when that screen is
first painted. What Python and Textual cost to start and paint anything is
this; the desk's first paint is compared with it. It prints one line,
``BENCH-JSON {...}``, last on stdout.
"""

from __future__ import annotations

import time

STARTED = time.time()  # before the imports: they are part of the start-up

import json  # noqa: E402
from typing import ClassVar  # noqa: E402

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import DataTable, Footer, Header  # noqa: E402

MARKER = "BENCH-JSON "
SIZE = (200, 50)


class Minimal(App[None]):
    """A header, a table of a few rows and a footer: the least a desk paints."""

    BINDINGS: ClassVar = [("q", "quit", "Quit")]  # a footer with a key, as the desk's

    def __init__(self) -> None:
        super().__init__()
        self.painted: float | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("commit", "subject")
        table.add_rows([(f"{n:07x}", f"commit {n}") for n in range(20)])
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        self.painted = time.time()
        self.exit()


def main() -> None:
    # Run as the desk's child runs the desk (headless, the same size), not by the test
    # harness: the same driver, the same first frame.
    app = Minimal()
    app.run(headless=True, size=SIZE)
    print(MARKER + json.dumps({"started": STARTED, "first_paint": app.painted}), flush=True)


if __name__ == "__main__":
    main()
