"""The ``syncdesk`` command line: the TUI, ``demo``, ``sandbox``, ``report``, ``learn``, writers.

The writers (``repair``, ``undo``, ``rebuild``, ``fold``, ``push``) act on a local sync
branch: ``--branch NAME``, else the checked-out branch. Each prints what it
did and, when it moved the branch, the new head as its last line.

Every failure the user can cause (not a repository, a missing ref, a bad
config) ends in one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import platformdirs

from syncdesk.services.errors import ServiceError, error_line, os_reason
from syncdesk.services.report.facts import to_json, to_markdown, to_text
from syncdesk.services.report.serialize import to_json_text
from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.sync.session import (
    SyncOptions,
    SyncSession,
    load_report,
    open_sync,
    writable_branch,
    write_tracking,
)

if TYPE_CHECKING:
    from syncdesk.services.demo.facts import DemoFacts
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.github.status import StatusData
    from syncdesk.services.sandbox.server import Sandbox
    from syncdesk.services.write.models import RepairPlan

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
    parser.add_argument(
        "--pr", type=int, metavar="N", help="the desk's pull request (default: by the head branch)"
    )
    parser.add_argument("--version", action="version", version=f"syncdesk {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="build the demo world and open syncdesk on it")
    demo.add_argument("--dir", type=Path, help="where to build it (default: a user cache dir)")
    demo.add_argument(
        "--no-open", action="store_true", help="build (or reuse) it, print its path and exit"
    )
    demo.add_argument(
        "--report",
        choices=("text", "json", "markdown"),
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
    learn = commands.add_parser(
        "learn", help="remember how an earlier sync branch resolved its conflicts"
    )
    learn.add_argument("ref", help="the sync branch to learn from (for example main2dev/...)")
    _sync_options(learn, inherited=True)
    report = commands.add_parser("report", help="print the sync's facts without a UI")
    _sync_options(report, inherited=True)
    report.add_argument("--format", choices=("text", "json", "markdown"), default="text")
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
    for option, what in (
        ("--head", "the sync branch or commit (default: HEAD)"),
        ("--dev", "the dev branch (default: from config, else dev)"),
        ("--main", "the main branch (default: from config, else main)"),
    ):
        findings.add_argument(option, default=argparse.SUPPRESS, help=f"with --repo: {what}")
    findings.add_argument(
        "--slice-size", type=int, default=argparse.SUPPRESS, help="with --repo: the slice size"
    )
    _writer_commands(commands)
    return parser


def _writer_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    branch_help = "the sync branch (default: the checked-out branch)"
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
        command.add_argument("--branch", default=None, help=branch_help)
        _sync_options(command, inherited=True)


def _version() -> str:
    """The installed distribution's version (``unknown`` when run from a bare checkout)."""
    try:
        return metadata.version("syncdesk")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


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
        if args.command == "sandbox":
            return _sandbox(args)
        if args.command == "report":
            return _report(args)
        if args.command == "learn":
            return _learn(args)
        if args.command == "findings":
            return _findings(args)
        if args.command in _WRITERS:
            return _WRITERS[args.command](args)
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
        line = error_line(error)
        print(f"syncdesk: {line} (set SYNCDESK_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL


def _options(args: argparse.Namespace) -> SyncOptions:
    if args.slice_size is not None and args.slice_size < 1:
        raise ServiceError("--slice-size must be a positive whole number")
    return SyncOptions(
        repo=args.repo, head=args.head, dev=args.dev, main=args.main, slice_size=args.slice_size
    )


def _report(args: argparse.Namespace) -> int:
    if args.body_file is not None and args.pr is not None:  # `syncdesk --pr N report --body-file`
        raise ServiceError("--body-file checks a description offline: leave out --pr")
    # A description that is no text fails here, before any git work.
    body = None if args.body_file is None else _read_body(args.body_file)
    session = open_sync(_options(args))
    link = None
    if args.with_pr or args.pr is not None:
        from syncdesk.services.github.link import github_link_for

        link = github_link_for(session, args.pr)
    sys.stdout.write(_report_output(session, args.format, link, body, breakage=args.breakage))
    return 0


def _read_body(path: Path) -> tuple[str, str]:
    """``(where it came from, text)`` of the description ``--body-file`` names."""
    from syncdesk.services.description.read import description_text, read_description

    if str(path) == "-":
        return "standard input", description_text(sys.stdin.buffer.read(), "standard input")
    return str(path), read_description(path)


def _report_output(
    session: SyncSession,
    fmt: str,
    link: GitHubLink | None,
    body: tuple[str, str] | None = None,
    *,
    breakage: bool = False,
) -> str:
    """The report in ``fmt``; with ``link``, the pull request's sections too.

    The sync and the pull request are read once: the status reuses both. With
    ``body`` (where from, text), that description is checked against the slice
    offline and fills the ``pr_body_check`` section.
    """
    from syncdesk.services.description.check import verify_body
    from syncdesk.services.github.status import load_status
    from syncdesk.services.report.description import (
        offline_check_json,
        offline_check_markdown,
        offline_check_text,
    )
    from syncdesk.services.report.findings import findings_json, findings_text
    from syncdesk.services.report.status import status_json
    from syncdesk.services.review.pull_request import load_findings

    report = load_report(session, breakage=breakage)
    findings = status = None
    if link is not None:
        findings = load_findings(session, link)
        status = load_status(session, findings.link, pr=findings.pr, report=report)
    source, check = (body[0], verify_body(body[1], report)) if body else ("", None)
    if fmt == "json":
        data = to_json(report, session.config)
        if findings is not None:
            data |= findings_json(findings)
        if status is not None:
            data |= status_json(status)
        if check is not None:
            data |= offline_check_json(check)
        return to_json_text(data)
    text = to_markdown(report) if fmt == "markdown" else to_text(report)
    if findings is not None:
        text += findings_text(findings)
    if status is not None:
        text += _status_text(status)
    if check is not None:
        render = offline_check_markdown if fmt == "markdown" else offline_check_text
        text += render(check, source)
    return text


def _status_text(status: StatusData) -> str:
    from rich.console import Console

    from syncdesk.tui.widgets.status_view import render_status

    console = Console(width=100, color_system=None, force_terminal=False, record=True)
    with console.capture() as captured:
        console.print(render_status(status, hints=False))
    return "\n" + captured.get()


def _learn(args: argparse.Namespace) -> int:
    from syncdesk.services.decisions.carryover import ResolutionStore
    from syncdesk.services.decisions.learn import learn_branch

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


def _findings(args: argparse.Namespace) -> int:
    from syncdesk.services.review.parse import review_findings
    from syncdesk.services.review.render import (
        findings_to_json,
        findings_to_text,
        shapes_looked_for,
    )

    try:
        data = (
            sys.stdin.buffer.read() if args.text_file == "-" else Path(args.text_file).read_bytes()
        )
    except OSError as error:
        raise ServiceError(f"cannot read {one_line(args.text_file)}: {os_reason(error)}") from None
    findings = review_findings(data.decode("utf-8", errors="replace"))
    if args.trace_repo is not None:
        from syncdesk.services.report.findings import traced_json, traced_text
        from syncdesk.services.review.trace import trace_findings

        traced = trace_findings(open_sync(replace(_options(args), repo=args.trace_repo)), findings)
        json_text = to_json_text(traced_json(traced)) if args.format == "json" else ""
        sys.stdout.write(json_text or traced_text(traced))
    elif args.format == "json":
        sys.stdout.write(to_json_text(findings_to_json(findings)))
    else:
        sys.stdout.write(findings_to_text(findings))
    if not findings:  # stderr: stdout stays the listing (or JSON) a script reads
        sys.stderr.write(shapes_looked_for())
    return 0


def _demo(args: argparse.Namespace) -> int:
    from syncdesk.services.sandbox.demo.scenario import demo_scenario
    from syncdesk.services.sandbox.server import Sandbox

    if args.scale == "large":
        return _large_demo(args)
    facts = _demo_world(args.dir)
    if args.report is None:
        print(facts.repo)  # scripts read the path; a report keeps stdout to itself
    options = SyncOptions(repo=facts.repo, head=facts.sync_branch)
    if args.no_open and args.report is None:
        return 0
    # The demo's GitHub is a sandbox in this process, on 127.0.0.1: no network.
    with Sandbox(demo_scenario(facts)) as sandbox:
        link = _sandbox_link(sandbox)
        if args.report is not None:
            sys.stdout.write(_report_output(open_sync(options), args.report, link))
            if args.no_open:
                return 0
        return _run_app(options, github=lambda: link)


def _demo_world(directory: Path | None) -> DemoFacts:
    """The demo world in ``directory`` (default: a user cache dir), built or reused."""
    from syncdesk.services.demo.world import build_world

    directory = directory or platformdirs.user_cache_path("syncdesk") / "demo"
    # Said only when it happens: a world that is already there is reused silently.
    building = partial(print, f"Building the demo world in {directory} ...", file=sys.stderr)
    facts = build_world(directory, on_build=building)
    _demo_settings(facts.repo)
    return facts


def _large_demo(args: argparse.Namespace) -> int:
    """``demo --scale large``: the large world, its pull request served by a sandbox, as demo."""
    from syncdesk.services.demo.large.world import build_large_world, reusable
    from syncdesk.services.sandbox.large import large_scenario
    from syncdesk.services.sandbox.server import Sandbox

    directory = (args.dir or platformdirs.user_cache_path("syncdesk") / "demo-large").resolve()
    if reusable(directory) is not None:
        print(f"Reusing the large demo world in {directory}", file=sys.stderr)
    building = partial(
        print, f"Building the large demo world in {directory} ...", file=sys.stderr, flush=True
    )
    facts = build_large_world(directory, on_build=building)
    _demo_settings(facts.repo)
    if args.report is None:
        print(facts.repo)
    options = SyncOptions(repo=facts.repo, head=facts.sync_branch)
    if args.no_open and args.report is None:
        return 0
    with Sandbox(large_scenario(facts)) as sandbox:
        link = _sandbox_link(sandbox, facts.pr_number)
        if args.report is not None:
            sys.stdout.write(_report_output(open_sync(options), args.report, link))
            if args.no_open:
                return 0
        return _run_app(options, github=lambda: link)


def _sandbox(args: argparse.Namespace) -> int:
    """Serve the demo's GitHub until Ctrl-C, first printing how to reach it from elsewhere.

    stdout gets exactly: the user-config TOML lines, the ``NAME=token`` line,
    the demo repository's path (flushed at once: scripts and tests read them).
    """
    from syncdesk.services.sandbox.connect import token_line, user_config_lines
    from syncdesk.services.sandbox.demo.scenario import demo_scenario
    from syncdesk.services.sandbox.server import Sandbox
    from syncdesk.services.sync.config import user_config_path

    facts = _demo_world(args.dir)
    # Stoppable from the moment the lines are out: a reader may signal as soon as it has them.
    with Sandbox(demo_scenario(facts)) as sandbox, _until_stopped() as stopped:
        lines = [*user_config_lines(sandbox), token_line(sandbox), str(facts.repo)]
        print("\n".join(lines), flush=True)
        print(
            f"syncdesk sandbox: serving {sandbox.scenario.full_name} on {sandbox.base_url}. "
            f"Put the TOML lines in {user_config_path()}, set the token in syncdesk's "
            "environment, run syncdesk in the repository above; Ctrl-C stops.",
            file=sys.stderr,
            flush=True,
        )
        stopped.wait()
    print("syncdesk sandbox: stopped", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _until_stopped() -> Iterator[threading.Event]:
    """An event SIGTERM sets; Ctrl-C (SIGINT) inside the block ends it quietly too."""
    stopped = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda _number, _frame: stopped.set())
    try:
        yield stopped
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _demo_settings(repo: Path) -> None:
    """The demo's own .syncdesk.toml (left untracked: the world's SHAs stay fixed)."""
    settings = repo / ".syncdesk.toml"
    if not settings.exists():
        settings.write_text(
            "# The demo's settings: who a DCO override request goes to, the CI gate.\n"
            'dco_maintainers = ["@lumen-ai/maintainers"]\n'
            'ci_gate = "CI / gate"\n'
        )


def _sandbox_link(sandbox: Sandbox, number: int | None = None) -> GitHubLink:
    from syncdesk.services.github.api import GitHubTarget
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.github.token import Token
    from syncdesk.services.sandbox.connect import sandbox_token
    from syncdesk.services.sandbox.demo.cast import PR_NUMBER

    scenario = sandbox.scenario
    target = GitHubTarget(sandbox.base_url, scenario.web_url, scenario.owner, scenario.name)
    token = Token(sandbox_token(scenario), "the demo sandbox")
    return GitHubLink(target, token, number or PR_NUMBER, sandbox.codecov_url)


def _open_tui(args: argparse.Namespace) -> int:
    return _run_app(_options(args), pr=args.pr)


def _run_app(
    options: SyncOptions,
    github: Callable[[], GitHubLink] | None = None,
    *,
    pr: int | None = None,
) -> int:
    # Textual is imported only when a screen is needed: report and demo
    # --no-open stay fast and work without a terminal.
    from syncdesk.tui.app import SyncDeskApp

    # Validate before the screen takes over the terminal, so a bad repository
    # or ref is one line in the shell rather than an error inside the app.
    session = open_sync(options)
    if github is None and pr is not None:
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


# -- the writers ----------------------------------------------------------------------------


def _writer_session(args: argparse.Namespace) -> tuple[SyncSession, str]:
    """The session on the branch to write, and that branch's name."""
    # One resolver names the branch for every command (services/git/branches.py):
    # a local branch, origin/x, x when only the remote has it, or HEAD on a branch.
    options = replace(_options(args), head=args.branch or args.head)
    session = open_sync(options)
    return session, writable_branch(session)


def _repair(args: argparse.Namespace) -> int:
    from syncdesk.services.write.session import plan_from_approved, write_confirmed

    session, _ = _writer_session(args)
    plan = plan_from_approved(session)
    for note in plan.notes:  # what the TUI shows on opening the workspace
        _print_note(note)
    if args.preview:
        _print_plan(plan)
        print("Nothing was written: syncdesk repair --write writes it.")
        return 0
    result = write_confirmed(session, plan, despite_blocking=args.despite_syntax_errors)
    print(
        f"Wrote repair {result.new_head[:12]} on {one_line(result.branch)} "
        f"(was {result.old_head[:12]}; backup {result.backup_ref})"
    )
    _print_checks(result.anatomy_ok, result.problems, result.tree_verified, result.patch_note)
    _print_note(result.note)
    print(result.new_head)
    return 0 if result.anatomy_ok and result.tree_verified else EXIT_ERROR


def _fold(args: argparse.Namespace) -> int:
    from syncdesk.services.write.session import fold_confirmed, fold_plan

    session, _ = _writer_session(args)
    plan = fold_plan(session)
    result = fold_confirmed(session, plan)
    merges = ", ".join(sha[:12] for sha in plan.merges)
    print(
        f"Folded {one_line(result.branch)} onto dev {plan.onto[:12]}: merges of dev {merges} "
        f"dropped (was {result.old_head[:12]}; backup {result.backup_ref})"
    )
    _print_checks(result.anatomy_ok, result.problems, result.tree_verified, result.patch_note)
    _print_note(result.note)
    print(result.new_head)
    return 0 if result.anatomy_ok and result.tree_verified else EXIT_ERROR


def _print_plan(plan: RepairPlan) -> None:
    what = (
        f"replaces {len(plan.replaces)} commit(s) on top of the merge, up to {plan.old_repair[:12]}"
        if plan.old_repair
        else "adds the first repair commit"
    )
    print(f"Repair of {one_line(plan.branch)} at {plan.old_head[:12]}: {what}")
    print(f"{len(plan.changes)} file(s) change; signed: {'yes' if plan.sign else 'no'}")
    print("\n--- commit message ---")
    print(visible(plan.message).rstrip("\n"))
    print("\n--- the new repair, against the merge ---")
    print(plan.diff_stat.rstrip("\n"))
    print("\n--- what changes against the previous repair ---")
    print(plan.diff_vs_old_repair.rstrip("\n"))
    if plan.checks:
        print("\n--- look before writing ---")
        for check in plan.checks:
            blocks = " [blocks --write; --despite-syntax-errors]" if check.blocking else ""
            print(f"{'error' if check.blocking else 'warning'}: {check.message}{blocks}")


def _print_checks(anatomy_ok: bool, problems: Sequence[str], tree_ok: bool, patch: str) -> None:
    print("Anatomy: " + ("ok" if anatomy_ok else "; ".join(problems) or "not ok"))
    print("Tree: " + ("verified" if tree_ok else "DIFFERS from the tree that was planned"))
    print(f"Patch: {patch}")


def _print_note(note: str) -> None:
    if note:
        print(f"note: {note}", file=sys.stderr)


def _undo(args: argparse.Namespace) -> int:
    from syncdesk.services.write.session import undo_confirmed, undo_target, undone_message

    session, _ = _writer_session(args)
    target = undo_target(session)
    print(f"Restoring {one_line(target.branch)} to {target.backup.before[:12]} (it is at "
          f"{target.head[:12]}; nothing moves if that changes first)")  # fmt: skip
    result = undo_confirmed(session, target)
    print(f"Restored {undone_message(result)}")
    print(result.new_head)
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    from syncdesk.services.decisions.carryover import ResolutionStore
    from syncdesk.services.write.rebuild import rebuild_onto

    session, branch = _writer_session(args)
    refs = session.refs
    store = ResolutionStore.open(session.git)
    result = rebuild_onto(
        session.git,
        branch,
        args.onto,
        dev=refs.dev,
        main=refs.main,
        store=store,
        tracking=write_tracking(session),
    )
    print(
        f"Rebuilt {one_line(result.branch)} on {result.onto[:12]}: merge {result.new_merge[:12]}"
        f", head {result.new_head[:12]} (was {result.old_head[:12]}; backup {result.backup_ref})"
    )
    print(f"Carried: {len(result.carried_files)} file(s) whole, {result.carried_hunks} hunk(s)"
          f" of changed files, {len(result.evil_carried)} non-conflict change(s)")  # fmt: skip
    for label, paths in (
        ("Left to decide", result.left),
        ("Not carried (see the backup)", result.not_carried),
        ("Repair patch no longer applies to", result.repair_conflicts),
    ):
        if paths:
            print(f"{label}: " + ", ".join(visible(path) for path in paths))
    _print_checks(result.anatomy_ok, result.problems, result.tree_verified, result.patch_note)
    _print_note(result.note)
    for note in store.notes:
        _print_note(note)
    print(result.new_head)
    return 0 if result.anatomy_ok and result.tree_verified else EXIT_ERROR


def _push(args: argparse.Namespace) -> int:
    from syncdesk.services.write.session import push_confirmed, push_lease, push_question

    session, _ = _writer_session(args)
    lease = push_lease(session)
    question = push_question(lease)
    if args.yes:
        print(question.replace("? ", ". ", 1))
    else:
        if not sys.stdin.isatty():
            raise ServiceError("push asks for confirmation: run it in a terminal, or pass --yes")
        answer = input(f"{question} [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("Nothing was pushed.")
            return EXIT_ERROR
    # Exactly the commit and the lease that were shown: a branch that moved
    # while the question was open is refused, not pushed.
    result = push_confirmed(session, lease)
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else EXIT_ERROR


_WRITERS = {
    "repair": _repair,
    "undo": _undo,
    "rebuild": _rebuild,
    "fold": _fold,
    "push": _push,
}
