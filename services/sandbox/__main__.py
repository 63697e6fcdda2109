"""``python -m syncdesk.services.sandbox [DIR]``: serve the demo world's sync PR until interrupted.

Builds (or reuses) the demo world in ``DIR`` (default ``./.syncdesk-demo``),
starts the sandbox on a free port and prints its URLs as one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from pathlib import Path

from syncdesk.services.demo.world import build_world
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox


def main(argv: list[str]) -> int:
    """Serve until Ctrl-C; returns the exit status."""
    directory = Path(argv[0]) if argv else Path(".syncdesk-demo")
    facts = build_world(directory)
    with Sandbox(demo_scenario(facts)) as sandbox:
        urls = {
            "base_url": sandbox.base_url,
            "ghes_url": sandbox.ghes_url,
            "graphql_url": sandbox.graphql_url,
            "codecov_url": sandbox.codecov_url,
            "repo": str(facts.repo),
        }
        print(json.dumps(urls), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
