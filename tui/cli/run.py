"""``main()``: the ``syncdesk`` command hands each subcommand to its room.

With no subcommand it opens the desk. Every failure the user can cause (not a
repository, a missing ref, a bad config) ends in one line on stderr and a
non-zero exit, never a traceback; so does a bug, as the last line of defence.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Callable, Sequence

from syncdesk.services.errors import ServiceError, error_line
from syncdesk.tui.cli.exits import EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED
from syncdesk.tui.cli.parser import build_parser

Handler = Callable[[argparse.Namespace], int]

# Each command's room and handler. A room is imported only when its command
# runs: the desk's first paint (no command) and a `report` do not pay for the
# writers', the demo's or the sandbox's imports.
_COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "demo_command"),
    "sandbox": ("demo", "sandbox_command"),
    "report": ("reads", "report_command"),
    "learn": ("reads", "learn_command"),
    "findings": ("reads", "findings_command"),
    "repair": ("writers", "repair_command"),
    "undo": ("writers", "undo_command"),
    "rebuild": ("writers", "rebuild_command"),
    "fold": ("writers", "fold_command"),
    "push": ("writers", "push_command"),
}
_DESK = ("desk", "open_desk")  # no command: the TUI


def handler(command: str | None) -> Handler:
    """The function that runs ``command`` (None: open the desk), its room imported now."""
    room, name = _COMMANDS.get(command or "", _DESK)
    found: Handler = getattr(importlib.import_module(f"syncdesk.tui.cli.{room}"), name)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``syncdesk`` console script."""
    _replace_unencodable()
    args = build_parser().parse_args(argv)
    try:
        return handler(args.command)(args)
    except ServiceError as error:
        print(f"syncdesk: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("syncdesk: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # the last line of defence: one line, never a traceback
        if os.environ.get("SYNCDESK_DEBUG"):
            raise
        line = error_line(error)
        print(f"syncdesk: {line} (set SYNCDESK_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL


def _replace_unencodable() -> None:
    """Let stdout and stderr print what their encoding cannot say as ``?``."""
    # Under a non-UTF-8 locale the report's marks (✓ ✗ ≠) cannot be encoded:
    # degrade them to "?" rather than fail the whole command.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
