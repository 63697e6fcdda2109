"""``demo`` and ``sandbox``: syncdesk on its built-in demo world, GitHub played by a sandbox.

``demo`` builds (or reuses) the world in a user cache dir, then opens the desk
on it or prints its report; ``--scale large`` does the same on the large world.
``sandbox`` serves the demo's GitHub on 127.0.0.1 until stopped, for a syncdesk
run elsewhere. The sandbox is in this process: no network.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.cli.desk import run_app
from syncdesk.tui.cli.reads import report_output

if TYPE_CHECKING:
    from syncdesk.services.demo.facts import DemoFacts
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.sandbox.scenario import Scenario
    from syncdesk.services.sandbox.server import Sandbox

# The demo and the sandbox (and GitHub's httpx) are imported inside the functions that
# use them: the product never needs them, so only these commands pay for loading them.


def demo_command(args: argparse.Namespace) -> int:
    """``demo``: the demo world's path or report, and the desk opened on it."""
    if args.scale == "large":
        return _large_demo(args)
    from syncdesk.services.sandbox.demo.scenario import demo_scenario

    facts = _demo_world(args.dir)
    return _show_demo(args, facts.repo, facts.sync_branch, partial(demo_scenario, facts))


def _large_demo(args: argparse.Namespace) -> int:
    """``demo --scale large``: the large world, its pull request served by a sandbox, as demo."""
    from syncdesk.services.demo.large.world import build_large_world, reusable
    from syncdesk.services.sandbox.large import large_scenario

    directory = (args.dir or platformdirs.user_cache_path("syncdesk") / "demo-large").resolve()
    if reusable(directory) is not None:
        print(f"Reusing the large demo world in {directory}", file=sys.stderr)
    building = partial(
        print, f"Building the large demo world in {directory} ...", file=sys.stderr, flush=True
    )
    facts = build_large_world(directory, on_build=building)
    _demo_settings(facts.repo)
    scenario = partial(large_scenario, facts)
    return _show_demo(args, facts.repo, facts.sync_branch, scenario, facts.pr_number)


def _show_demo(
    args: argparse.Namespace,
    repo: Path,
    branch: str,
    scenario: Callable[[], Scenario],
    number: int | None = None,
) -> int:
    """Print the world's path (or its report), then open the desk on it unless ``--no-open``."""
    from syncdesk.services.sandbox.server import Sandbox

    if args.report is None:
        print(repo)  # scripts read the path; a report keeps stdout to itself
    options = SyncOptions(repo=repo, head=branch)
    if args.no_open and args.report is None:
        return 0
    # The demo's GitHub is a sandbox in this process, on 127.0.0.1: no network.
    with Sandbox(scenario()) as sandbox:
        link = _sandbox_link(sandbox, number)
        if args.report is not None:
            sys.stdout.write(report_output(open_sync(options), args.report, link))
            if args.no_open:
                return 0
        return run_app(options, github=lambda: link)


def _demo_world(directory: Path | None) -> DemoFacts:
    """The demo world in ``directory`` (default: a user cache dir), built or reused."""
    from syncdesk.services.demo.world import build_world

    directory = directory or platformdirs.user_cache_path("syncdesk") / "demo"
    # Said only when it happens: a world that is already there is reused silently.
    building = partial(print, f"Building the demo world in {directory} ...", file=sys.stderr)
    facts = build_world(directory, on_build=building)
    _demo_settings(facts.repo)
    return facts


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
    """The link to ``sandbox`` as the desk's GitHub: pull request ``number``, else the demo's."""
    from syncdesk.services.github.api import GitHubTarget
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.github.token import Token
    from syncdesk.services.sandbox.connect import sandbox_token
    from syncdesk.services.sandbox.demo.cast import PR_NUMBER

    scenario = sandbox.scenario
    target = GitHubTarget(sandbox.base_url, scenario.web_url, scenario.owner, scenario.name)
    token = Token(sandbox_token(scenario), "the demo sandbox")
    return GitHubLink(target, token, number or PR_NUMBER, sandbox.codecov_url)


def sandbox_command(args: argparse.Namespace) -> int:
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
