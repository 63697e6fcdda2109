"""DCO on the sync's pull request: what fails, what GitHub says, and the override request.

The DCO app (dcoapp/app) fails a sync whenever an imported main commit has no
valid sign-off, and such a commit cannot be fixed here: the slice must keep
main's SHAs. Only a maintainer with write access can then press "Set DCO to
pass" on the check run (there is no API for it), so the maintainer *asks*,
with a comment. This module

- checks every commit of the pull request with the app's rule
  (:mod:`syncdesk.services.sync.dco`), telling the imported commits (not rewritable) from
  ours (the repair writer re-signs them);
- reads GitHub's own DCO verdict beside it (the ``DCO`` check run, or a
  ``DCO`` commit status) and says whether the two agree;
- finds precedent: earlier merged sync pull requests whose DCO check ended
  the same way;
- writes the override request, with every untrusted string escaped, and posts
  it at most once per head commit.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from syncdesk.services.github.api import GitHubClient, PostResult
from syncdesk.services.github.models import CheckRun, CommitStatus, PrCommit, PullRequest
from syncdesk.services.sanitize import flattened, markdown_cell
from syncdesk.services.sync.dco import app_signoffs, signoff_matches
from syncdesk.services.sync.models import Person

DCO_NAME = "DCO"  # the app's check run name (and the context of a status fallback)
FAILING = frozenset({"failure", "action_required", "error"})  # "error": a status's failure
PASSING = "success"
PRECEDENT_SCAN = 3  # candidates read per precedent wanted (one check-runs request each)

# A line git would read as a sign-off, whatever the app makes of it.
_SIGNOFF_LIKE = re.compile(r"^\s*signed-off-by\s*:", re.IGNORECASE | re.MULTILINE)
_HEX_SHA = re.compile(r"[0-9a-f]{7,64}")
_HANDLE = re.compile(r"@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9._-]{1,100})?")
_WEB_URL = re.compile(r"https?://[^\s()<>\[\]]+")
_MARKDOWN = re.compile(r"([`*_\[\]~!])")
_REFERENCE = re.compile(r"#(?=\d)")
_WORD = re.compile(r"[a-z_]{1,40}")


@dataclass(frozen=True, slots=True)
class DcoFailure:
    """A commit the DCO app would fail, and whether we can fix it ourselves."""

    sha: str
    author: str  # "Name <email>", as the commit says
    committer: str
    reason: str  # one line: "no Signed-off-by", "signed off by X <y>, who is ...", ...
    imported: bool  # a main commit of the slice: keeps its SHA, cannot be rewritten
    fixable: bool  # ours (the merge or the repair): the repair writer re-signs it
    subject: str = ""  # the message's first line


@dataclass(frozen=True, slots=True)
class DcoSkipped:
    """A commit the DCO app does not check: a merge, or an allow-listed bot's."""

    sha: str
    author: str
    reason: str  # "merge commit" or "bot author (matches 'pattern')"


@dataclass(frozen=True, slots=True)
class GitHubDco:
    """GitHub's own DCO verdict on the head: the latest ``DCO`` check run, or a status."""

    source: str  # "check run" or "commit status"
    status: str  # a run's status (queued, in_progress, completed); "completed" for a settled status
    conclusion: str | None  # success, action_required, failure, ...; None while not completed
    summary: str  # the run's output summary (the app lists the failing commits there)
    html_url: str  # where "Set DCO to pass" is (a status's target URL for the fallback)

    @property
    def failing(self) -> bool | None:
        """True for failure/action_required, False for success, None for anything else."""
        if self.conclusion in FAILING:
            return True
        if self.conclusion == PASSING:
            return False
        return None


@dataclass(frozen=True, slots=True)
class DcoReport:
    """The DCO app's rule applied to every commit of the pull request, and GitHub's verdict."""

    head_sha: str
    checked: int  # commits the rule was applied to (merges and bots excluded)
    failures: tuple[DcoFailure, ...]  # in the pull request's commit order
    skipped: tuple[DcoSkipped, ...]
    github: GitHubDco | None  # None: GitHub has no DCO check run or status on the head
    complete: bool = True  # False: GitHub's commit list was cut short (pr.partial)

    @property
    def imported_failures(self) -> tuple[DcoFailure, ...]:
        """Failing main commits of the slice: only an override gets them through."""
        return tuple(failure for failure in self.failures if failure.imported)

    @property
    def fixable_failures(self) -> tuple[DcoFailure, ...]:
        """Failing commits of ours: re-signing the repair fixes them, no override needed."""
        return tuple(failure for failure in self.failures if failure.fixable)

    @property
    def agrees(self) -> bool | None:
        """Whether GitHub's verdict equals ours; None while GitHub has no settled verdict."""
        if self.github is None or self.github.failing is None:
            return None
        return self.github.failing == bool(self.failures)

    @property
    def needs_override(self) -> bool:
        """Imported commits fail, and GitHub has not (yet) been set to pass."""
        passed = self.github is not None and self.github.failing is False
        return bool(self.imported_failures) and not passed


@dataclass(frozen=True, slots=True)
class Precedent:
    """An earlier merged sync pull request and how its DCO check ended."""

    number: int
    title: str
    html_url: str
    dco_conclusion: str | None  # the latest DCO run's conclusion on its head commit


# -- the local verdict ------------------------------------------------------------------


def dco_report(pr: PullRequest, *, imported: Collection[str], bots: Sequence[str]) -> DcoReport:
    """Check every commit of ``pr`` with the DCO app's rule, beside GitHub's verdict.

    Merges (more than one parent) are skipped as the app skips them; so are
    commits whose author email or name matches a ``bots`` pattern (shell
    patterns, case-insensitive: the configured allow-list). A failing commit
    whose SHA is in ``imported`` (the slice's main commits) is not fixable:
    it keeps main's SHA. Any other failing commit is ours and fixable.
    """
    failures: list[DcoFailure] = []
    skipped: list[DcoSkipped] = []
    checked = 0
    for commit in pr.commits:
        author = _person(commit.author_name, commit.author_email)
        if len(commit.parents) > 1:
            skipped.append(DcoSkipped(commit.sha, author, "merge commit"))
            continue
        pattern = bot_pattern(commit, bots)
        if pattern is not None:
            skipped.append(DcoSkipped(commit.sha, author, f"bot author (matches {pattern!r})"))
            continue
        checked += 1
        reason = failure_reason(commit)
        if reason is not None:
            failures.append(
                DcoFailure(
                    sha=commit.sha,
                    author=author,
                    committer=_person(commit.committer_name, commit.committer_email),
                    reason=reason,
                    imported=commit.sha in imported,
                    fixable=commit.sha not in imported,
                    subject=commit.message.split("\n", 1)[0].strip(),
                )
            )
    return DcoReport(
        head_sha=pr.head_sha,
        checked=checked,
        failures=tuple(failures),
        skipped=tuple(skipped),
        github=github_dco(pr.check_runs, pr.statuses),
        complete="commits" not in pr.partial,
    )


def bot_pattern(commit: PrCommit, bots: Sequence[str]) -> str | None:
    """The first ``bots`` pattern the author's email or name matches (case-insensitive)."""
    email, name = commit.author_email.lower(), commit.author_name.lower()
    for pattern in bots:
        wanted = pattern.lower()
        if fnmatch.fnmatchcase(email, wanted) or fnmatch.fnmatchcase(name, wanted):
            return pattern
    return None


def failure_reason(commit: PrCommit) -> str | None:
    """Why the DCO app fails ``commit``, in one line; None when it passes."""
    author = Person(commit.author_name, commit.author_email)
    committer = Person(commit.committer_name, commit.committer_email)
    found = app_signoffs(commit.message)
    if signoff_matches(found, author, committer):
        return None
    if not found:
        if _SIGNOFF_LIKE.search(commit.message):
            return "a Signed-off-by line the DCO app cannot read (it wants 'Name <email>')"
        return "no Signed-off-by"
    if len(found) > 1:
        listed = ", ".join(_person(s.name, s.email) for s in found)
        return f"none of its {len(found)} sign-offs ({listed}) is the author or the committer"
    only = found[0]
    names = {author.name.lower(), committer.name.lower()}
    emails = {author.email.lower(), committer.email.lower()}
    signed = _person(only.name, only.email)
    if only.name.lower() in names:
        return f"signed off by {signed}: the email is neither the author's nor the committer's"
    if only.email.lower() in emails:
        return f"signed off by {signed}: the name is neither the author's nor the committer's"
    return f"signed off by {signed}, who is neither the author nor the committer"


def github_dco(runs: Sequence[CheckRun], statuses: Sequence[CommitStatus]) -> GitHubDco | None:
    """GitHub's DCO verdict: the latest ``DCO`` check run (by id), else a ``DCO`` status."""
    named = [run for run in runs if run.name == DCO_NAME]
    if named:
        run = max(named, key=lambda item: item.id)
        conclusion = run.conclusion if run.status == "completed" else None
        return GitHubDco("check run", run.status, conclusion, run.summary, run.html_url)
    contexts = [status for status in statuses if status.context == DCO_NAME]
    if not contexts:
        return None
    status = max(contexts, key=lambda item: item.id)
    settled = status.state != "pending"
    return GitHubDco(
        "commit status",
        "completed" if settled else "pending",
        status.state if settled else None,
        status.description,
        status.target_url,
    )


# -- precedent ----------------------------------------------------------------------------


def sync_branch_prefix(head_ref: str) -> str:
    """The branch prefix sync pull requests share: ``main2dev/4242`` -> ``main2dev/``.

    A head without a ``/`` is taken whole: a bot that reuses one branch name
    for every sync has its earlier pull requests on exactly that branch.
    """
    slash = head_ref.rfind("/")
    return head_ref[: slash + 1] if slash >= 0 else head_ref


def find_precedent(
    client: GitHubClient,
    *,
    head_prefix: str,
    exclude: int,
    limit: int = 10,
    same_as: str | None = None,
) -> list[Precedent]:
    """Earlier merged pull requests on ``head_prefix`` branches, newest first, with their DCO.

    Each head commit's ``DCO`` check runs are read (the latest by id is how
    it ended). With ``same_as`` (the current DCO conclusion) only those that
    ended the same way are kept; without it, every one with a DCO result.
    At most ``limit`` are returned, and at most ``PRECEDENT_SCAN * limit``
    heads are read, so the cost stays bounded.
    """
    candidates = client.merged_pulls(head_prefix, limit * PRECEDENT_SCAN + 1)
    found: list[Precedent] = []
    for pull in candidates:
        if pull.number == exclude:
            continue
        runs = client.check_runs(pull.head_sha, DCO_NAME)
        if not runs:
            continue
        latest = max(runs, key=lambda run: run.id)
        if latest.status != "completed" or (same_as is not None and latest.conclusion != same_as):
            continue
        found.append(Precedent(pull.number, pull.title, pull.html_url, latest.conclusion))
        if len(found) >= limit:
            break
    return found


# -- the override request -------------------------------------------------------------------


def override_request(
    report: DcoReport,
    pr: PullRequest,
    *,
    maintainers: Sequence[str],
    precedent: Sequence[Precedent],
) -> str:
    """The markdown comment that asks a maintainer to set the DCO check to pass.

    It lists the imported commits that fail and why they cannot be rewritten,
    names the failing commits of ours that the repair will fix instead, links
    the DCO check run (where the button is) and cites ``precedent``. Names,
    subjects and reasons are escaped: they can neither mention anyone, nor
    reference an issue, nor break the markdown. Raises ``ValueError`` when no
    imported commit fails (then there is nothing to ask for).
    """
    imported = report.imported_failures
    if not imported:
        raise ValueError("no imported commit fails the DCO check: there is nothing to override")
    lines = ["**DCO override request**", "", _opening(maintainers), ""]
    lines += [_state_sentence(report, len(imported)), ""]
    lines += _commit_table(imported)
    lines += [
        "",
        "These commits cannot be signed off here. A sync brings main's commits into dev as "
        "they are, with the SHAs they have on main, so that the slice stays identical to main; "
        "re-signing them would make new commits that main does not have, and the same changes "
        "would arrive a second time with a later sync.",
    ]
    if not report.complete:
        lines += [
            "",
            "GitHub did not list every commit of this pull request, so the table may be short.",
        ]
    lines += ["", *_ours(report.fixable_failures), ""]
    if precedent:
        lines += [_precedent_sentence(precedent), ""]
    lines.append(
        f"If the list looks right, please press **Set DCO to pass** on {_check_link(report, pr)} "
        "(it needs write access to this repository)."
    )
    return "\n".join(lines) + "\n"


def post_override_request(client: GitHubClient, pr: PullRequest, text: str) -> PostResult:
    """Post ``text`` on the pull request at most once per head commit.

    The key is ``dco-override:<head sha>``, independent of the text: pressing
    again, even after the text changed, finds the first post instead of asking
    twice for the same head; a new head (the repair was rewritten) may ask
    again. A failed POST is never retried (see ``GitHubClient.post_comment``).
    """
    return client.post_comment(pr.number, text, override_key(pr.head_sha))


def override_key(head_sha: str) -> str:
    """The marker key of the override request for ``head_sha``."""
    return f"dco-override:{head_sha}"


def _opening(maintainers: Sequence[str]) -> str:
    handles = [_handle(item) for item in maintainers if item.strip()]
    if handles:
        return f"{' '.join(handles)}: could one of you set the DCO check of this sync to pass?"
    return "A maintainer with write access is needed to set the DCO check of this sync to pass."


def _handle(item: str) -> str:
    text = item.strip()
    if _HANDLE.fullmatch(text):
        return text if text.startswith("@") else f"@{text}"
    return _escaped(text)  # not a GitHub handle: shown, never a mention


def _state_sentence(report: DcoReport, count: int) -> str:
    commits = "commit fails" if count == 1 else "commits fail"
    head = _short(report.head_sha)
    if report.github is None or report.github.conclusion is None:
        where = f"GitHub has no settled DCO result on the head ({head}) yet"
    else:
        where = f"The DCO check on the head ({head}) is {_state(report.github.conclusion)}"
    return f"{where}; by the DCO app's rule, {count} imported main {commits}:"


def _commit_table(failures: Sequence[DcoFailure]) -> list[str]:
    rows = ["| Commit | Author | Subject | Why it fails |", "|---|---|---|---|"]
    for failure in failures:
        # Names and subjects are shown as code: GitHub renders nothing inside a code
        # span (no mention, no issue link, no HTML), so no escape shows in the
        # preview (`&lt;` and `\[bot\]` did).
        cells = (_code_cell(failure.author), _code_cell(failure.subject), _escaped(failure.reason))
        rows.append(f"| {_short(failure.sha)} | {' | '.join(cells)} |")
    return rows


def _ours(fixable: Sequence[DcoFailure]) -> list[str]:
    if not fixable:
        return ["Every other commit passes or is exempt (merges and allow-listed bots)."]
    listed = "; ".join(f"{_short(f.sha)} ({_escaped(f.reason)})" for f in fixable)
    return [
        f"Not part of this request: {listed}. "
        + ("That commit is" if len(fixable) == 1 else "Those commits are")
        + " the sync's own, so the repair commit will be rewritten with a valid sign-off "
        "instead of asking for an override."
    ]


def _precedent_sentence(precedent: Sequence[Precedent]) -> str:
    numbers = [f"#{item.number}" for item in precedent]
    joined = numbers[0] if len(numbers) == 1 else f"{', '.join(numbers[:-1])} and {numbers[-1]}"
    verb = "was" if len(numbers) == 1 else "were"
    states = {item.dco_conclusion for item in precedent if item.dco_conclusion}
    state = f" ({_state(states.pop())})" if len(states) == 1 else ""
    return f"Precedent: {joined} ended with the same DCO state{state} and {verb} merged."


def _check_link(report: DcoReport, pr: PullRequest) -> str:
    run = report.github
    if run is not None and run.source == "check run" and _WEB_URL.fullmatch(run.html_url):
        return f"the [DCO check run]({run.html_url})"
    checks = f"{pr.html_url.rstrip('/')}/checks"
    if _WEB_URL.fullmatch(checks):
        return f"the DCO check in the [Checks tab]({checks})"
    return "the DCO check in the Checks tab"


def _state(conclusion: str) -> str:
    # GitHub's conclusions are snake_case words; anything else is shown escaped, not as code.
    return f"`{conclusion}`" if _WORD.fullmatch(conclusion) else _escaped(conclusion)


def _short(sha: str) -> str:
    return sha[:7] if _HEX_SHA.fullmatch(sha) else _escaped(sha[:12])


def _code_cell(text: str) -> str:
    """Untrusted text as a code span in one table cell: literal on GitHub, escapes unseen.

    One line; a ``|`` is escaped (GFM splits cells on it even inside a code
    span, and renders ``\\|`` there as ``|``); the fence is one backtick longer
    than the longest run inside, padded when the text starts or ends with one.
    """
    flat = flattened(text).replace("|", "\\|")
    if not flat:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _escaped(text: str) -> str:
    """Untrusted text for markdown: no mention, no issue reference, no markup, no HTML."""
    safe = _MARKDOWN.sub(r"\\\1", markdown_cell(text))
    return _REFERENCE.sub("#\u200d", safe)


def _person(name: str, email: str) -> str:
    return f"{name} <{email}>"
