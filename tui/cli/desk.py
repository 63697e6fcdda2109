"""Opening the desk: the TUI on a sync, for ``syncdesk`` with no command and for ``demo``.

The only room that imports Textual, and only once a screen is really needed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from syncdesk.services.errors import ServiceError
from syncdesk.services.sync.session import SyncOptions, open_sync
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
    """Validate the sync in the shell, then run the app on it until the user quits."""
    # Textual is imported only when a screen is needed: report and demo
    # --no-open stay fast and work without a terminal.
    from syncdesk.tui.app import SyncDeskApp

    # Validate before the screen takes over the terminal, so a bad repository
    # or ref is one line in the shell rather than an error inside the app.
    session = open_sync(options)
    if github is None and pr is not None:
        # GitHub's modules bring httpx: loaded only when a pull request is named.
        from syncdesk.services.github.link import github_link_for

        github = partial(github_link_for, session, pr)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # Without a terminal Textual would draw escape codes into a pipe and
        # wait for keys that never come.
        raise ServiceError(
            "the desk needs a terminal: run syncdesk in one, or use syncdesk report for the facts"
        )
    SyncDeskApp(session, github=github).run()
    return 0
