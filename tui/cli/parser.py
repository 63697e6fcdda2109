"""What the ``syncdesk`` command line accepts: the options and the subcommands, nothing else.

:func:`build_parser` reads the command line; :func:`sync_options` turns the sync
options it read into the :class:`SyncOptions` every command opens its sync with.
A usage error is one line on stderr and exit code 2, like every other bad input.
"""

from __future__ import annotations

import argparse
from importlib import metadata
from pathlib import Path
from typing import NoReturn

from syncdesk.services.errors import ServiceError
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.options import SyncOptions
from syncdesk.tui.cli.exits import EXIT_USAGE

_FORMATS = ("text", "json", "markdown")
_HEAD_HELP = "the sync branch or commit (default: HEAD)"
_DEV_HELP = "the dev branch (default: from config, else dev)"
_MAIN_HELP = "the main branch (default: from config, else main)"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the help text in the docs and tests)."""
    parser = _Parser(
        prog="syncdesk",
        description="A terminal desk for main -> dev syncs. With no command, opens the TUI.",
    )
    _add_sync_options(parser)
    parser.add_argument(
        "--pr", type=int, metavar="N", help="the desk's pull request (default: by the head branch)"
    )
    parser.add_argument("--version", action="version", version=f"syncdesk {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _demo_commands(commands)
    _learn_command(commands)
    _report_command(commands)
    _findings_command(commands)
    _writer_commands(commands)
    return parser


def sync_options(args: argparse.Namespace) -> SyncOptions:
    """The sync the parsed options name (a slice size below 1 is refused)."""
    if args.slice_size is not None and args.slice_size < 1:
        raise ServiceError("--slice-size must be a positive whole number")
    return SyncOptions(
        repo=args.repo,
        head=args.head,
        dev=args.dev,
        main=args.main,
        slice_size=args.slice_size,
        results_cache=not args.no_cache,
    )


def _add_sync_options(parser: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    """Add ``--repo``, ``--head``, ``--dev``, ``--main``, ``--slice-size``, ``--no-cache``."""

    # argparse lets a subcommand's defaults overwrite what the main parser already
    # parsed: `syncdesk --repo X report` would silently read the current directory.
    # The subcommand's copies of the options therefore have no defaults of their own.
    def default(value: object) -> object:
        """``value`` on the main parser; on a subcommand, no default at all."""
        return argparse.SUPPRESS if inherited else value

    parser.add_argument(
        "--repo", type=Path, default=default(Path.cwd()), help="the repository (default: .)"
    )
    parser.add_argument("--head", default=default(None), help=_HEAD_HELP)
    parser.add_argument("--dev", default=default(None), help=_DEV_HELP)
    parser.add_argument("--main", default=default(None), help=_MAIN_HELP)
    parser.add_argument(
        "--slice-size",
        type=int,
        default=default(None),
        help="how many main commits a sync imports (default: 100)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        default=default(False),
        help="compute every result afresh, and keep none in the user's cache",
    )


def _demo_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``demo`` and ``sandbox``: the built-in demo world and its GitHub."""
    demo = commands.add_parser("demo", help="build the demo world and open syncdesk on it")
    demo.add_argument("--dir", type=Path, help="where to build it (default: a user cache dir)")
    demo.add_argument(
        "--no-open", action="store_true", help="build (or reuse) it, print its path and exit"
    )
    demo.add_argument(
        "--report",
        choices=_FORMATS,
        help="print the demo's full report, its pull request included (with --no-open)",
    )
    demo.add_argument(
        "--scale",
        choices=("small", "large"),
        default="small",
        help="small (default) or large: 3,000 files, 89 conflicts, a 400-commit backlog",
    )
    sandbox = commands.add_parser(
        "sandbox", help="serve the demo's GitHub on 127.0.0.1 until Ctrl-C, for syncdesk elsewhere"
    )
    sandbox.add_argument("--dir", type=Path, help="where the demo world is (default: as demo)")


def _learn_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``learn REF``: store an earlier sync branch's resolutions."""
    learn = commands.add_parser(
        "learn", help="remember how an earlier sync branch resolved its conflicts"
    )
    learn.add_argument("ref", help="the sync branch to learn from (for example main2dev/...)")
    _add_sync_options(learn, inherited=True)


def _report_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``report``: the sync's facts, optionally its pull request or a description to check."""
    report = commands.add_parser("report", help="print the sync's facts without a UI")
    _add_sync_options(report, inherited=True)
    report.add_argument("--format", choices=_FORMATS, default="text")
    report.add_argument(
        "--breakage",
        action="store_true",
        help="also look for code the result breaks (undefined names, lost imports, calls that "
        "no longer fit) in the conflicted and flagged Python files: slower on a large sync",
    )
    pull = report.add_mutually_exclusive_group()
    pull.add_argument(
        "--with-pr",
        action="store_true",
        help="also read the sync's pull request (found by the head branch) and its findings",
    )
    # No default here: `syncdesk --pr N report` keeps the N the main parser read.
    pull.add_argument(
        "--pr", type=int, metavar="N", default=argparse.SUPPRESS, help="also read pull request N"
    )
    pull.add_argument(
        "--body-file",
        type=Path,
        metavar="F",
        help='check the PR description in F ("-": stdin) against the slice, offline',
    )


def _findings_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``findings``: parse review findings from a text, traced on a repository if given."""
    findings = commands.add_parser(
        "findings",
        help="parse review findings out of a text; with --repo, trace their cited lines (offline)",
    )
    findings.add_argument("--text-file", required=True, help='the review text ("-": stdin)')
    findings.add_argument("--format", choices=("text", "json"), default="text")
    # Its own dest: the main parser's --repo defaults to ".", and only a
    # --repo given here turns the parser into a tracer.
    findings.add_argument(
        "--repo",
        dest="trace_repo",
        type=Path,
        default=None,
        help="trace each cited range's origin on this repository's sync (git only, no GitHub)",
    )
    # The other sync options keep what the main parser read unless given here.
    for option, what in (("--head", _HEAD_HELP), ("--dev", _DEV_HELP), ("--main", _MAIN_HELP)):
        findings.add_argument(option, default=argparse.SUPPRESS, help=f"with --repo: {what}")
    findings.add_argument(
        "--slice-size", type=int, default=argparse.SUPPRESS, help="with --repo: the slice size"
    )


def _writer_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``repair``, ``undo``, ``rebuild``, ``fold``, ``push``: each acts on one sync branch."""
    repair = commands.add_parser(
        "repair", help="preview or write the approved resolutions into the repair commit"
    )
    mode = repair.add_mutually_exclusive_group(required=True)
    mode.add_argument("--preview", action="store_true", help="show what would be written")
    mode.add_argument("--write", action="store_true", help="write it and move the branch")
    repair.add_argument(
        "--despite-syntax-errors",
        action="store_true",
        help="write even if a changed Python file does not compile (see --preview first)",
    )
    undo = commands.add_parser("undo", help="restore the branch to syncdesk's last backup")
    rebuild = commands.add_parser(
        "rebuild", help="rebuild the sync on a new dev base, carrying every resolution over"
    )
    rebuild.add_argument("--onto", required=True, help="the dev commit to rebuild on")
    fold = commands.add_parser(
        "fold",
        help="dev merged on top: rebuild as one merge on the newest dev + one repair, same files",
    )
    push = commands.add_parser("push", help="push the branch with a lease (asks first)")
    push.add_argument("--yes", action="store_true", help="do not ask (scripts)")
    for command in (repair, undo, rebuild, fold, push):
        command.add_argument(
            "--branch", default=None, help="the sync branch (default: the checked-out branch)"
        )
        _add_sync_options(command, inherited=True)


def _version() -> str:
    """The installed distribution's version (``unknown`` when run from a bare checkout)."""
    try:
        return metadata.version("syncdesk")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"
