"""The ``syncdesk`` command line: the TUI, ``demo`` and ``report``.

Every failure the user can cause (not a repository, a missing ref, a bad
config) ends in one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import platformdirs

from services.errors import ServiceError
from services.report import to_json, to_markdown, to_text
from services.sanitize import one_line
from services.sync import SyncOptions, load_report, open_sync

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def _sync_options(parser: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    # argparse lets a subcommand's defaults overwrite what the main parser already
    # parsed: `syncdesk --repo X report` would silently read the current directory.
    # The subcommand's copies of the options therefore have no defaults of their own.
    def default(value: object) -> object:
        return argparse.SUPPRESS if inherited else value

    parser.add_argument(
        "--repo", type=Path, default=default(Path.cwd()), help="the repository (default: .)"
    )
    parser.add_argument(
        "--head", default=default(None), help="the sync branch or commit (default: HEAD)"
    )
    parser.add_argument(
        "--dev", default=default(None), help="the dev branch (default: from config, else dev)"
    )
    parser.add_argument(
        "--main", default=default(None), help="the main branch (default: from config, else main)"
    )
    parser.add_argument(
        "--slice-size",
        type=int,
        default=default(None),
        help="how many main commits a sync imports (default: 100)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the help text in the docs and tests)."""
    parser = _Parser(
        prog="syncdesk",
        description="A terminal desk for main -> dev syncs. With no command, opens the TUI.",
    )
    _sync_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="build the demo world and open syncdesk on it")
    demo.add_argument("--dir", type=Path, help="where to build it (default: a user cache dir)")
    demo.add_argument(
        "--no-open", action="store_true", help="build (or reuse) it, print its path and exit"
    )
    learn = commands.add_parser(
        "learn", help="remember how an earlier sync branch resolved its conflicts"
    )
    learn.add_argument("ref", help="the sync branch to learn from (for example main2dev/...)")
    _sync_options(learn, inherited=True)
    report = commands.add_parser("report", help="print the sync's facts without a UI")
    _sync_options(report, inherited=True)
    report.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``syncdesk`` console script."""
    # Under a non-UTF-8 locale the report's marks (✓ ✗ ≠) cannot be encoded:
    # degrade them to "?" rather than fail the whole command.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    args = build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            return _demo(args)
        if args.command == "report":
            return _report(args)
        if args.command == "learn":
            return _learn(args)
        return _open_tui(args)
    except ServiceError as error:
        print(f"syncdesk: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("syncdesk: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # the last line of defence: one line, never a traceback
        if os.environ.get("SYNCDESK_DEBUG"):
            raise
        print(
            f"syncdesk: internal error: {type(error).__name__}: {one_line(str(error))} "
            "(set SYNCDESK_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _options(args: argparse.Namespace) -> SyncOptions:
    if args.slice_size is not None and args.slice_size < 1:
        raise ServiceError("--slice-size must be a positive whole number")
    return SyncOptions(
        repo=args.repo, head=args.head, dev=args.dev, main=args.main, slice_size=args.slice_size
    )


def _report(args: argparse.Namespace) -> int:
    session = open_sync(_options(args))
    report = load_report(session)
    if args.format == "json":
        output = json.dumps(to_json(report, session.config), indent=2, ensure_ascii=False) + "\n"
    elif args.format == "markdown":
        output = to_markdown(report)
    else:
        output = to_text(report)
    sys.stdout.write(output)
    return 0


def _learn(args: argparse.Namespace) -> int:
    from services.carryover import ResolutionStore
    from services.learn import learn_branch

    session = open_sync(SyncOptions(repo=args.repo, head=args.ref, dev=args.dev, main=args.main))
    store = ResolutionStore.open(session.git)
    learned = learn_branch(session.git, args.ref, session.refs.dev, session.refs.main, store)
    print(
        f"Learned {learned.hunks} hunk and {learned.files} whole-file resolutions "
        f"from {learned.ref}"
        + (f" ({learned.skipped} left unresolved there)" if learned.skipped else "")
    )
    for note in store.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from services.demo import build_world

    directory = args.dir or platformdirs.user_cache_path("syncdesk") / "demo"
    print(f"Building the demo world in {directory} ...", file=sys.stderr)
    facts = build_world(directory)
    print(facts.repo)
    if args.no_open:
        return 0
    return _run_app(SyncOptions(repo=facts.repo, head=facts.sync_branch))


def _open_tui(args: argparse.Namespace) -> int:
    return _run_app(_options(args))


def _run_app(options: SyncOptions) -> int:
    # Textual is imported only when a screen is needed: report and demo
    # --no-open stay fast and work without a terminal.
    from tui.app import SyncDeskApp

    # Validate before the screen takes over the terminal, so a bad repository
    # or ref is one line in the shell rather than an error inside the app.
    session = open_sync(options)
    SyncDeskApp(session).run()
    return 0
