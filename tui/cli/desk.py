"""Opening the desk: the TUI on a sync, for ``syncdesk`` with no command and for ``demo``.

The only room that imports Textual, and only once a screen is really needed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from syncdesk.services.errors import ServiceError
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.cli.parser import sync_options

if TYPE_CHECKING:
    from syncdesk.services.github.link import GitHubLink


def open_desk(args: argparse.Namespace) -> int:
    """``syncdesk`` with no command: the TUI on the sync the options name."""
    return run_app(sync_options(args), pr=args.pr)


def run_app(
    options: SyncOptions,
    github: Callable[[], GitHubLink] | None = None,
    *,
    pr: int | None = None,
) -> int:
    """Run the app on the sync ``options`` name until the user quits; its exit code."""
    # Textual is imported only when a screen is needed: report and demo
    # --no-open stay fast and work without a terminal.
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # Without a terminal Textual would draw escape codes into a pipe and wait for
        # keys that never come. A sync that cannot be opened is said first, as always.
        open_sync(options)
        raise ServiceError(
            "the desk needs a terminal: run syncdesk in one, or use syncdesk report for the facts"
        )
    from syncdesk.tui.app import SyncDeskApp

    # The sync is opened in the desk's first screen, after its first frame
    # (screens/opening_screen.py): a repository or ref that cannot be opened ends
    # the desk with one line in the shell, as before the screen took the terminal.
    app = SyncDeskApp(github=github, options=options, pr=pr)
    app.run()
    return app.return_code or 0
