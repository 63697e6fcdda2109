"""The commands that only read: ``report``, ``findings`` and ``learn``.

``report`` prints the sync's facts (with ``--with-pr``/``--pr`` its pull request's
findings and status too, with ``--body-file`` a description checked offline);
``findings`` parses review findings out of a text; ``learn`` stores how an
earlier sync branch resolved its conflicts (in syncdesk's own store, no branch moves).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learn import learn_branch
from syncdesk.services.description.check import BodyCheck, verify_body
from syncdesk.services.description.read import description_text, read_description
from syncdesk.services.errors import ServiceError, os_reason
from syncdesk.services.report.description import (
    offline_check_json,
    offline_check_markdown,
    offline_check_text,
)
from syncdesk.services.report.facts import to_json, to_markdown, to_text
from syncdesk.services.report.serialize import to_json_text
from syncdesk.services.review.trace import trace_findings
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, load_report, open_sync
from syncdesk.tui.cli.parser import sync_options
from syncdesk.tui.memory import release_freed_memory

if TYPE_CHECKING:
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.github.status import StatusData
    from syncdesk.services.review.models import Finding
    from syncdesk.services.review.pull_request import FindingsData
    from syncdesk.services.sync.models import SyncReport

    _PullRequest = tuple[FindingsData, StatusData]

# The pull request's modules bring httpx (and the status view rich), the review parser
# markdown-it: each is imported inside the function that needs it, so the commands that
# do not read a pull request or a review text start without them.


def report_command(args: argparse.Namespace) -> int:
    """``report``: the sync's facts on stdout, in the format asked for."""
    if args.body_file is not None and args.pr is not None:  # `syncdesk --pr N report --body-file`
        raise ServiceError("--body-file checks a description offline: leave out --pr")
    # A description that is no text fails here, before any git work.
    body = None if args.body_file is None else _read_body(args.body_file)
    session = open_sync(sync_options(args))
    link = None
    if args.with_pr or args.pr is not None:
        from syncdesk.services.github.link import github_link_for

        link = github_link_for(session, args.pr)
    sys.stdout.write(report_output(session, args.format, link, body, breakage=args.breakage))
    for note in session.results.take_notes() if session.results is not None else ():
        print(f"note: {note}", file=sys.stderr)  # stderr: stdout stays the report
    return 0


def report_output(
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
    report = load_report(session, breakage=breakage)
    # The reads' buffers (blobs, lines, the audit's working state) are freed but kept in
    # glibc's heaps: given back before the JSON is built, the report's peak is 250 MB
    # instead of 300 on 13_08 (tui/memory.py).
    release_freed_memory()
    pull = None if link is None else _pull_request(session, link, report)
    source, check = (body[0], verify_body(body[1], report)) if body else ("", None)
    if fmt == "json":
        return _json_output(session, report, pull, check)
    return _text_output(report, fmt, pull, check, source)


def _pull_request(session: SyncSession, link: GitHubLink, report: SyncReport) -> _PullRequest:
    """The pull request's findings and status (the status reuses the findings' reading)."""
    from syncdesk.services.github.status import load_status
    from syncdesk.services.review.pull_request import load_findings

    findings = load_findings(session, link)
    return findings, load_status(session, findings.link, pr=findings.pr, report=report)


def _json_output(
    session: SyncSession, report: SyncReport, pull: _PullRequest | None, check: BodyCheck | None
) -> str:
    """The report as one JSON document, the pull request's and the check's sections merged in."""
    data = to_json(report, session.config)
    if pull is not None:
        from syncdesk.services.report.findings import findings_json
        from syncdesk.services.report.status import status_json

        data |= findings_json(pull[0])
        data |= status_json(pull[1])
    if check is not None:
        data |= offline_check_json(check)
    return to_json_text(data)


def _text_output(
    report: SyncReport,
    fmt: str,
    pull: _PullRequest | None,
    check: BodyCheck | None,
    source: str,
) -> str:
    """The report as text or markdown, the pull request's and the check's sections after it."""
    text = to_markdown(report) if fmt == "markdown" else to_text(report)
    if pull is not None:
        from syncdesk.services.report.findings import findings_text

        text += findings_text(pull[0]) + _status_text(pull[1])
    if check is not None:
        render = offline_check_markdown if fmt == "markdown" else offline_check_text
        text += render(check, source)
    return text


def _status_text(status: StatusData) -> str:
    """The pull request's status as the desk draws it, in plain text 100 columns wide."""
    from rich.console import Console

    from syncdesk.tui.widgets.status_view import render_status

    console = Console(width=100, color_system=None, force_terminal=False, record=True)
    with console.capture() as captured:
        console.print(render_status(status, hints=False))
    return "\n" + captured.get()


def _read_body(path: Path) -> tuple[str, str]:
    """``(where it came from, text)`` of the description ``--body-file`` names."""
    if str(path) == "-":
        return "standard input", description_text(sys.stdin.buffer.read(), "standard input")
    return str(path), read_description(path)


def findings_command(args: argparse.Namespace) -> int:
    """``findings``: the review findings in a text, traced on a repository with ``--repo``."""
    from syncdesk.services.review.parse import review_findings
    from syncdesk.services.review.render import (
        findings_to_json,
        findings_to_text,
        shapes_looked_for,
    )

    findings = review_findings(_read_text(args.text_file).decode("utf-8", errors="replace"))
    if args.trace_repo is not None:
        sys.stdout.write(_traced_output(args, findings))
    elif args.format == "json":
        sys.stdout.write(to_json_text(findings_to_json(findings)))
    else:
        sys.stdout.write(findings_to_text(findings))
    if not findings:  # stderr: stdout stays the listing (or JSON) a script reads
        sys.stderr.write(shapes_looked_for())
    return 0


def _read_text(name: str) -> bytes:
    """The bytes of the review text ``--text-file`` names (``-``: stdin)."""
    try:
        return sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as error:
        raise ServiceError(f"cannot read {one_line(name)}: {os_reason(error)}") from None


def _traced_output(args: argparse.Namespace, findings: list[Finding]) -> str:
    """The findings traced on ``--repo``'s sync, as text or JSON."""
    from syncdesk.services.report.findings import traced_json, traced_text

    traced = trace_findings(open_sync(replace(sync_options(args), repo=args.trace_repo)), findings)
    if args.format == "json":
        return to_json_text(traced_json(traced))
    return traced_text(traced)


def learn_command(args: argparse.Namespace) -> int:
    """``learn REF``: store the resolutions the sync branch ``REF`` made."""
    session = open_sync(SyncOptions(repo=args.repo, head=args.ref, dev=args.dev, main=args.main))
    store = ResolutionStore.open(session.git)
    learned = learn_branch(session.git, args.ref, session.refs.dev, session.refs.main, store)
    print(
        f"Learned {learned.hunks} hunk and {learned.files} whole-file resolutions "
        f"from {one_line(learned.ref)}"
        + (f" ({learned.skipped} left unresolved there)" if learned.skipped else "")
    )
    for note in store.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0
