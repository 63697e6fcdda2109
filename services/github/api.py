"""The only door to GitHub: the sync's pull request read, comments posted exactly once.

REST goes through PyGithub (over ``requests``); GraphQL goes through httpx
(:func:`graphql`). Both reach github.com, a GitHub Enterprise server or the
offline sandbox the same way: only :attr:`GitHubTarget.api_url` differs.

Subtleties this module owns:

- PyGithub sleeps 0.25 s before every request and 1 s before every write by
  default; both throttles are turned off (``seconds_between_*=None``), GitHub's
  own rate-limit headers are what we respect.
- Reads retry (5xx and rate limits, with short caps so a far reset raises
  instead of freezing the app); **writes never retry**: a POST that failed
  ambiguously (a 502 after GitHub stored the comment) is checked by reading
  the comments back, never re-sent blindly.
- Repeated 5xx end in ``requests.exceptions.RetryError``, which is not a
  ``GithubException``: every failure is turned into one :class:`ServiceError` line.
- Only attributes present in list payloads are read (``user.login``, not
  ``user.name``), so PyGithub does not fire a completion GET per object.
- Every comment syncdesk posts carries a hidden marker, ``<!-- syncdesk:<key> -->``;
  before posting, the existing comments are searched for it, so a second
  press, or a retry after an error, finds the first post instead of making another.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import httpx
import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import BadCredentialsException, RateLimitExceededException
from github.GithubObject import NotSet

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.atomic import locked, make_directory
from syncdesk.services.git.runner import Git
from syncdesk.services.github.models import (
    CheckRun,
    CommitStatus,
    IssueComment,
    PrCommit,
    PullRequest,
    Review,
    ReviewComment,
)
from syncdesk.services.github.pending import PendingPosts
from syncdesk.services.github.token import Token
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.config import Config, user_config_path

T = TypeVar("T")

LIST_LIMIT = 5000  # items per list; beyond it the list is marked partial
TIMEOUT_SECONDS = 20
_MARKER = re.compile(r"<!-- syncdesk:([A-Za-z0-9:._-]{1,120}) -->")
_REMOTE = re.compile(
    r"^(?:[a-z+]+://)?(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?[:/](?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/?$"
)


_post_locks: dict[tuple[str, str, int, str], threading.Lock] = {}
_post_locks_guard = threading.Lock()


def _thread_lock(target: GitHubTarget, where: tuple[int, str]) -> threading.Lock:
    """The lock of one post (one repository, pull request and key) in this process."""
    with _post_locks_guard:
        return _post_locks.setdefault((target.api_url, target.full_name, *where), threading.Lock())


def _never_sent(error: requests.exceptions.RequestException) -> bool:
    """Whether the request surely never reached the server (no connection was made)."""
    if isinstance(error, requests.exceptions.ConnectTimeout):
        return True
    text = str(error)
    return isinstance(error, requests.exceptions.ConnectionError) and (
        "NewConnectionError" in text or "Failed to establish a new connection" in text
    )


def post_id(target: GitHubTarget, where: tuple[int, str]) -> str:
    """One post's identity: a digest of the server, repository, pull request and key."""
    name = "\0".join((target.api_url, target.full_name, str(where[0]), where[1]))
    return hashlib.sha256(name.encode()).hexdigest()[:32]


def post_lock_file(directory: Path, target: GitHubTarget, where: tuple[int, str]) -> Path:
    """The lock file of one post, in ``directory``: named by its :func:`post_id`."""
    return directory / f"{post_id(target, where)}.lock"


class GitHubError(ServiceError):
    """GitHub could not be reached, refused, or answered with an error."""


@dataclass(frozen=True, slots=True)
class GitHubTarget:
    """Which server and repository: github.com, an Enterprise host, or the sandbox."""

    api_url: str  # https://api.github.com, https://ghe.example/api/v3, http://127.0.0.1:P
    web_url: str  # https://github.com: blob links in review bodies point here
    owner: str
    name: str

    @property
    def full_name(self) -> str:
        """``owner/name``."""
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True, slots=True)
class PostResult:
    """What a post did: a new comment, or the one an earlier press already made."""

    comment_id: int
    html_url: str
    already_posted: bool  # the marker was found: nothing was sent
    confirmed_after_error: bool = False  # GitHub errored, but the comment is there


@dataclass(frozen=True, slots=True)
class PullSummary:
    """A pull request as a list page gives it: enough to name it, no request per item."""

    number: int
    title: str
    html_url: str
    head_ref: str
    head_sha: str
    base_ref: str
    merged_at: str  # ISO 8601; "" when it was closed without merging


def target_for(git: Git, config: Config) -> GitHubTarget:
    """The repository on GitHub: ``github_repo`` from the config, else the remote's URL."""
    if config.github_repo:
        owner, _, name = config.github_repo.partition("/")
        if not owner or not name or "/" in name:
            raise ServiceError(f"github_repo must be owner/name, not {config.github_repo!r}")
        return GitHubTarget(config.github_api_url, config.github_web_url, owner, name)
    result = git.run(["remote", "get-url", "--", config.remote], check=False)
    url = result.text.strip()
    match = _REMOTE.match(url) if result.status == 0 else None
    if match is None:
        # github_repo is a user-file key (a repository's own .syncdesk.toml may not
        # say where the token goes): name the file that accepts it.
        why = "has no GitHub URL" if result.status == 0 else "does not exist"
        raise ServiceError(
            f"cannot tell the GitHub repository: remote {one_line(config.remote)!r} {why}; "
            f'set github_repo = "owner/name" in your user config file ({user_config_path()})'
        )
    return GitHubTarget(config.github_api_url, config.github_web_url, match["owner"], match["name"])


def marker(key: str) -> str:
    """The hidden line that identifies a comment syncdesk posted for ``key``."""
    safe = re.sub(r"[^A-Za-z0-9:._-]", "-", key)[:120]
    return f"<!-- syncdesk:{safe} -->"


def content_key(kind: str, head_sha: str, body: str) -> str:
    """A key for "this text, for this head": the same reply is never posted twice."""
    digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{kind}:{head_sha[:12]}:{digest}"


def markers_in(body: str) -> set[str]:
    """The syncdesk keys a comment body carries."""
    return set(_MARKER.findall(body or ""))


class GitHubClient:
    """Reads a pull request whole and posts comments exactly once."""

    def __init__(
        self,
        target: GitHubTarget,
        token: Token,
        *,
        post_locks: Path | None = None,
        timeout: float = TIMEOUT_SECONDS,
        pending: PendingPosts | None = None,
    ) -> None:
        # post_locks: a directory for the posts' lock files, shared by every
        # syncdesk process on the repository; without it posts lock per process.
        self._post_locks = post_locks
        self._pending = pending if pending is not None else PendingPosts()
        self.target = target
        self.token_source = token.source
        auth = Auth.Token(token.value)
        common: dict[str, Any] = {
            "base_url": target.api_url.rstrip("/"),
            "auth": auth,
            "timeout": timeout,
            "per_page": 100,
            # Lazy: get_repo/get_pull/get_issue build objects without a GET;
            # the first attribute read completes them (one request, as needed).
            "lazy": True,
            "seconds_between_requests": None,
            "seconds_between_writes": None,
        }
        reads = GithubRetry(
            total=3,
            backoff_factor=0.5,
            secondary_rate_wait=5,
            max_rate_limit_wait=15,
            allowed_methods=frozenset({"GET", "HEAD"}),
        )
        self._reads = Github(retry=reads, **common)
        self._writes = Github(retry=None, **common)
        self._viewer: str | None = None

    # -- reading ----------------------------------------------------------------------

    def find_pull(self, head_branch: str) -> int | None:
        """The newest pull request whose head is ``head_branch`` (open ones first)."""
        repo = self._call(lambda: self._reads.get_repo(self.target.full_name))
        head = f"{self.target.owner}:{head_branch}"
        for state in ("open", "closed"):
            listing = repo.get_pulls(state=state, head=head, sort="created")
            numbers: list[int] = self._call(partial(_numbers, listing))
            if numbers:
                return max(numbers)
        return None

    def pull_request(
        self,
        number: int,
        *,
        steps: Steps = QUIET,
    ) -> PullRequest:
        """Everything syncdesk reads of pull request ``number``, every page of every list."""
        steps("Reading the pull request")
        repo = self._call(lambda: self._reads.get_repo(self.target.full_name))
        pr = self._call(lambda: repo.get_pull(number))
        partial: list[str] = []

        def read_all(what: str, items: Callable[[], Iterable[T]]) -> list[T]:
            steps(f"Reading {what}")
            values, complete = self._call(lambda: _limited(items(), LIST_LIMIT))
            if not complete:
                partial.append(what)
            return values

        commits = read_all("commits", lambda: map(_commit, pr.get_commits()))
        reviews = read_all("reviews", lambda: map(_review, pr.get_reviews()))
        comments = read_all(
            "review comments", lambda: map(_review_comment, pr.get_review_comments())
        )
        issue_comments = read_all("comments", lambda: map(_issue_comment, pr.get_issue_comments()))
        head = self._call(lambda: repo.get_commit(pr.head.sha))
        runs = read_all("check runs", lambda: map(_check_run, head.get_check_runs()))
        statuses = read_all("statuses", lambda: map(_status, head.get_statuses()))
        return PullRequest(
            number=pr.number,
            title=pr.title or "",
            body=pr.body or "",
            user=_login(pr.user),
            state=pr.state,
            merged=bool(pr.merged),
            head_ref=pr.head.ref,
            head_sha=pr.head.sha,
            base_ref=pr.base.ref,
            base_sha=pr.base.sha,
            html_url=pr.html_url or "",
            labels=tuple(label.name for label in pr.labels),
            commits=tuple(commits),
            reviews=tuple(reviews),
            review_comments=tuple(comments),
            issue_comments=tuple(issue_comments),
            check_runs=tuple(runs),
            statuses=tuple(statuses),
            partial=tuple(partial),
        )

    def merged_pulls(self, head_prefix: str, limit: int, *, scan: int = 300) -> list[PullSummary]:
        """Merged pull requests whose head branch starts with ``head_prefix``, newest first.

        GitHub's ``head`` filter takes one exact branch, so closed pull requests
        are listed (newest created first) and filtered here. At most ``scan`` of
        them are read (three pages of 100), so a long history costs a bounded
        number of requests; only list-payload attributes are read.
        """
        repo = self._call(lambda: self._reads.get_repo(self.target.full_name))
        listing = repo.get_pulls(state="closed", sort="created", direction="desc")

        def collect() -> list[PullSummary]:
            found: list[PullSummary] = []
            for pull in islice(listing, scan):
                if len(found) >= limit:
                    break
                if pull.merged_at is not None and pull.head.ref.startswith(head_prefix):
                    found.append(_pull_summary(pull))
            return found

        return self._call(collect)

    def check_runs(self, sha: str, name: str | None = None) -> list[CheckRun]:
        """Every check run of commit ``sha`` (reruns included), named ``name`` if given.

        ``filter=all`` keeps superseded runs: a DCO override is a *new* run, so
        the earlier ``action_required`` one stays visible beside it. Newest first.
        """
        repo = self._call(lambda: self._reads.get_repo(self.target.full_name))
        commit = self._call(lambda: repo.get_commit(sha))  # lazy: no request
        listing = commit.get_check_runs(check_name=name or NotSet, filter="all")
        runs, _complete = self._call(lambda: _limited(map(_check_run, listing), LIST_LIMIT))
        return sorted(runs, key=lambda run: run.id, reverse=True)

    # -- writing ----------------------------------------------------------------------

    def post_comment(self, number: int, body: str, key: str) -> PostResult:
        """Post ``body`` on the pull request's conversation, once per ``key``.

        The body gains the key's hidden marker. If a comment of ours with that
        marker exists, nothing is sent. A failed POST is never retried: the
        comments are read back, and if GitHub stored it after all the post
        counts as done.
        """
        repo = self._call(lambda: self._writes.get_repo(self.target.full_name))
        issue = self._call(lambda: repo.get_issue(number))
        # The read-back goes through the reading client, whose GETs are retried on
        # a 5xx: after an ambiguous POST, one failed read must not read as "not posted".
        readable = self._reads.get_repo(self.target.full_name).get_issue(number)
        return self._post_once(
            (number, key),
            lambda: readable.get_comments(),
            lambda tagged: issue.create_comment(tagged),
            body,
            key,
            "the comment",
        )

    def reply_in_thread(self, number: int, comment_id: int, body: str, key: str) -> PostResult:
        """Reply in the review thread of ``comment_id`` (its top-level comment), once per ``key``.

        GitHub refuses replies to replies, so ``comment_id`` must be a thread's
        first comment: the caller passes ``Finding.comment_ids``, which are.
        """
        repo = self._call(lambda: self._writes.get_repo(self.target.full_name))
        pr = self._call(lambda: repo.get_pull(number))
        readable = self._reads.get_repo(self.target.full_name).get_pull(number)
        return self._post_once(
            (number, key),
            lambda: (c for c in readable.get_review_comments() if c.in_reply_to_id == comment_id),
            lambda tagged: pr.create_review_comment_reply(comment_id, tagged),
            body,
            key,
            "the reply",
        )

    def _post_once(
        self,
        where: tuple[int, str],
        comments: Callable[[], Iterable[Any]],
        create: Callable[[str], Any],
        body: str,
        key: str,
        what: str,
    ) -> PostResult:
        # Only our own comments count: anyone can paste a marker into theirs,
        # and that must not silence syncdesk. The lock keeps two presses, or two
        # syncdesk processes on one repository, from both finding nothing and
        # both posting: read back and post happen under it.
        tagged = f"{body.rstrip()}\n\n{marker(key)}\n"
        me = self.viewer()

        def existing() -> PostResult | None:
            for comment in self._call(lambda: list(comments())):
                mine = comment.user is not None and comment.user.login == me
                if mine and key in markers_in(comment.body or ""):
                    return PostResult(comment.id, comment.html_url or "", True)
            return None

        record = self._pending_record(where)
        with self._post_lock(where):
            found = existing()
            if found is not None:
                self._pending.clear(record)
                return found
            wait = self._pending.wait_left(record)
            if wait > 0:
                raise GitHubError(
                    f"an earlier attempt at {what} ended with no answer, and GitHub does not "
                    f"show it yet: it may still be stored. Nothing was sent; press again in "
                    f"{wait:.0f} s (syncdesk looks for it first, and posts only if it is not there)"
                )
            self._pending.mark(record)
            try:
                created = create(tagged)
            except GithubException as error:  # GitHub answered: what it shows now is the outcome
                after = existing()
                self._pending.clear(record)
                if after is not None:
                    return PostResult(after.comment_id, after.html_url, False, True)
                raise self._error(error, f"{what} was not posted; press again to retry") from None
            except requests.exceptions.RequestException as error:
                if _never_sent(error):
                    self._pending.clear(record)
                    raise self._error(
                        error, f"{what} was not posted; press again to retry"
                    ) from None
                # No answer (a timeout, a dropped connection): the server may still
                # store it. The record stays, so a retry looks and waits first.
                after = existing()
                if after is not None:
                    self._pending.clear(record)
                    return PostResult(after.comment_id, after.html_url, False, True)
                raise self._error(
                    error,
                    f"whether {what} was stored is unknown; press again in "
                    f"{self._pending.settle:.0f} s: syncdesk looks for it first and posts only "
                    "if it is not there",
                ) from None
            self._pending.clear(record)
        return PostResult(created.id, created.html_url or "", False)

    def _pending_record(self, where: tuple[int, str]) -> str | Path:
        """Where the post's pending record is kept: beside its lock file, or in this process."""
        if self._post_locks is None:
            return post_id(self.target, where)
        return post_lock_file(self._post_locks, self.target, where)

    def _post_lock(self, where: tuple[int, str]) -> AbstractContextManager[object]:
        if self._post_locks is None:
            return _thread_lock(self.target, where)
        make_directory(self._post_locks)
        # flock excludes other processes, and other threads too: each open of
        # the file is its own open file description.
        return locked(post_lock_file(self._post_locks, self.target, where))

    def viewer(self) -> str:
        """The login of the token's user (read once)."""
        if self._viewer is None:
            self._viewer = str(self._call(lambda: self._writes.get_user().login))
        return self._viewer

    def rate_limit(self) -> tuple[int, int, str]:
        """``(remaining, limit, reset time)`` from the last answer's headers; no request.

        ``(0, 0, "")`` when no answer carried them (an Enterprise server with
        rate limiting off): PyGithub's own properties would then ask
        ``/rate_limit``, so its requester's values are read instead.
        """
        try:
            requester = self._reads.requester
            remaining, limit = requester.rate_limiting
            reset = requester.rate_limiting_resettime
        except (AttributeError, TypeError, ValueError):
            return 0, 0, ""
        if limit <= 0:
            return 0, 0, ""
        when = datetime.fromtimestamp(reset, UTC).strftime("%H:%M UTC") if reset else ""
        return remaining, limit, when

    # -- errors -----------------------------------------------------------------------

    def _call(self, job: Callable[[], T]) -> T:
        try:
            return job()
        except (GithubException, requests.exceptions.RequestException) as error:
            raise self._error(error) from None
        except AssertionError as error:
            # PyGithub asserts that every URL it is handed (a Link header's next
            # page) is on the API host and port; anything else stays a bug.
            elsewhere = _refused_url(error)
            if elsewhere is None:
                raise
            host = urlsplit(self.target.api_url).netloc
            raise GitHubError(
                one_line(f"{host} pointed its next page at another host or port "
                         f"({elsewhere}); syncdesk does not follow it")
            ) from None  # fmt: skip

    def _error(self, error: Exception, then: str = "") -> GitHubError:
        host = urlsplit(self.target.api_url).netloc
        tail = f"; {then}" if then else ""
        if isinstance(error, BadCredentialsException):
            line = f"{host} refused the token from {self.token_source} (bad credentials)"
        elif isinstance(error, RateLimitExceededException):
            line = f"{host}'s rate limit is used up; try again later"
        elif isinstance(error, GithubException):
            message = error.data.get("message") if isinstance(error.data, dict) else None
            line = f"{host} answered {error.status}: {message or 'no message'}"
        else:
            line = f"could not reach {host}: {type(error).__name__}"
        return GitHubError(one_line(line + tail))

    # -- labels -----------------------------------------------------------------------

    def labels(self, number: int) -> tuple[str, ...]:
        """The labels on pull request (issue) ``number``, read now."""
        repo = self._call(lambda: self._reads.get_repo(self.target.full_name))
        issue = self._call(lambda: repo.get_issue(number))
        return self._call(lambda: tuple(str(label.name) for label in issue.get_labels()))

    def add_label(self, number: int, name: str) -> tuple[str, ...]:
        """Put label ``name`` on pull request ``number``; its labels afterwards.

        GitHub creates a label the repository does not have yet. The POST is
        never retried: after a failure the labels are read back, and if
        ``name`` is there the write counts as done.
        """
        return self._label_write(number, name, add=True)

    def remove_label(self, number: int, name: str) -> tuple[str, ...]:
        """Take label ``name`` off pull request ``number``; its labels afterwards.

        The DELETE is never retried; after a failure (GitHub answers 404 when
        the label is already gone) the labels are read back, and if ``name`` is
        not there the write counts as done.
        """
        return self._label_write(number, name, add=False)

    def _label_write(self, number: int, name: str, *, add: bool) -> tuple[str, ...]:
        repo = self._call(lambda: self._writes.get_repo(self.target.full_name))
        url = f"{repo.url}/issues/{number}/labels"
        requester = self._writes.requester
        try:
            if add:
                _headers, data = requester.requestJsonAndCheck(
                    "POST", url, input={"labels": [name]}
                )
            else:
                # quote(safe=""): a label such as "area/ci" must stay one path segment.
                _headers, data = requester.requestJsonAndCheck(
                    "DELETE", f"{url}/{quote(name, safe='')}"
                )
        except (GithubException, requests.exceptions.RequestException) as error:
            after = self.labels(number)
            if any(label.casefold() == name.casefold() for label in after) == add:
                return after
            raise self._error(error, "the label was not changed; press again to retry") from None
        if isinstance(data, list):
            return tuple(str(item["name"]) for item in data if isinstance(item, dict))
        return self.labels(number)


def graphql(
    target: GitHubTarget, token: Token, query: str, variables: dict[str, Any]
) -> dict[str, Any]:
    """Run one GraphQL query (through httpx); its ``data``, or a :class:`GitHubError`."""
    url = graphql_url(target.api_url)
    try:
        response = httpx.post(
            url,
            json={"query": query, "variables": variables},
            headers={"Authorization": f"bearer {token.value}", "User-Agent": "syncdesk"},
            timeout=TIMEOUT_SECONDS,
        )
    except httpx.HTTPError as error:
        host = urlsplit(url).netloc
        raise GitHubError(f"could not reach {host}: {type(error).__name__}") from None
    if response.status_code != 200:
        raise GitHubError(f"{urlsplit(url).netloc} answered {response.status_code} to GraphQL")
    try:
        payload = response.json()
    except ValueError:  # an HTML page from a proxy or a sign-on wall
        raise GitHubError(f"{urlsplit(url).netloc} did not answer GraphQL with JSON") from None
    if not isinstance(payload, dict):
        raise GitHubError(f"{urlsplit(url).netloc} answered GraphQL with something else")
    errors = payload.get("errors")
    if errors:
        first = errors[0] if isinstance(errors, list) and errors else errors
        message = first.get("message", "unknown error") if isinstance(first, dict) else first
        raise GitHubError(one_line(f"GraphQL error: {message}"))
    data = payload.get("data")
    return data if isinstance(data, dict) else {}


REVIEW_THREADS_QUERY = """
query ReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          isOutdated
          comments(first: 1) { nodes { databaseId } }
        }
      }
    }
  }
}
"""


@dataclass(frozen=True, slots=True)
class ThreadState:
    """A review thread as GraphQL tells it (REST does not say whether it is resolved)."""

    root_comment_id: int
    resolved: bool
    outdated: bool


def review_threads(
    target: GitHubTarget, token: Token, number: int, *, max_pages: int = 20
) -> dict[int, ThreadState]:
    """Each review thread of pull request ``number``, by its first comment's id."""
    threads: dict[int, ThreadState] = {}
    after: str | None = None
    for _ in range(max_pages):
        variables = {"owner": target.owner, "name": target.name, "number": number, "after": after}
        data = graphql(target, token, REVIEW_THREADS_QUERY, variables)
        pull = (data.get("repository") or {}).get("pullRequest") or {}
        page = pull.get("reviewThreads") or {}
        for node in page.get("nodes") or []:
            first = ((node.get("comments") or {}).get("nodes") or [{}])[0]
            root = first.get("databaseId")
            if isinstance(root, int):
                threads[root] = ThreadState(
                    root, bool(node.get("isResolved")), bool(node.get("isOutdated"))
                )
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            break
        after = info.get("endCursor")
    return threads


def graphql_url(api_url: str) -> str:
    """GraphQL's endpoint for a REST base URL, as PyGithub derives it."""
    base = api_url.rstrip("/")
    if base.endswith("/v3"):
        return base[: -len("/v3")] + "/graphql"
    return base + "/graphql"


# -- converting PyGithub objects (reading only what list payloads carry) ---------------


def _refused_url(error: AssertionError) -> str | None:
    """What PyGithub's URL check refused (a host, or a port), if that is where ``error`` rose."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None or trace.tb_frame.f_globals.get("__name__") != "github.Requester":
        return None
    said = str(error)
    return f"port {said}" if said.isdigit() else f"host {said}"


def _limited(items: Iterable[T], limit: int) -> tuple[list[T], bool]:
    values: list[T] = []
    iterator: Iterator[T] = iter(items)
    for item in iterator:
        if len(values) >= limit:
            return values, False
        values.append(item)
    return values, True


def _numbers(pulls: Iterable[Any]) -> list[int]:
    return [int(pull.number) for pull in _limited(pulls, 50)[0]]


def _login(user: Any) -> str:
    return str(user.login) if user is not None else "ghost"


def _when(value: datetime | None) -> str:
    return value.isoformat() if value is not None else ""


def _commit(commit: Any) -> PrCommit:
    git_commit = commit.commit
    verification = git_commit.verification
    return PrCommit(
        sha=commit.sha,
        message=git_commit.message or "",
        author_name=git_commit.author.name or "",
        author_email=git_commit.author.email or "",
        committer_name=git_commit.committer.name or "",
        committer_email=git_commit.committer.email or "",
        author_login=commit.author.login if commit.author is not None else None,
        verified=None if verification is None else bool(verification.verified),
        verification_reason="" if verification is None else (verification.reason or ""),
        parents=tuple(parent.sha for parent in commit.parents),
    )


def _review(review: Any) -> Review:
    return Review(
        id=review.id,
        user=_login(review.user),
        state=review.state or "",
        body=review.body or "",
        commit_id=review.commit_id,
        submitted_at=_when(review.submitted_at),
        html_url=review.html_url or "",
    )


def _review_comment(comment: Any) -> ReviewComment:
    return ReviewComment(
        id=comment.id,
        review_id=comment.pull_request_review_id,
        user=_login(comment.user),
        body=comment.body or "",
        path=comment.path,
        line=comment.line,
        start_line=comment.start_line,
        side=comment.side,
        start_side=comment.start_side,
        commit_id=comment.commit_id,
        original_commit_id=comment.original_commit_id,
        original_line=comment.original_line,
        original_start_line=comment.original_start_line,
        in_reply_to_id=comment.in_reply_to_id,
        diff_hunk=comment.diff_hunk or "",
        created_at=_when(comment.created_at),
        html_url=comment.html_url or "",
    )


def _issue_comment(comment: Any) -> IssueComment:
    return IssueComment(
        id=comment.id,
        user=_login(comment.user),
        body=comment.body or "",
        created_at=_when(comment.created_at),
        html_url=comment.html_url or "",
    )


def _check_run(run: Any) -> CheckRun:
    output = run.output
    return CheckRun(
        id=run.id,
        name=run.name,
        status=run.status or "",
        conclusion=run.conclusion,
        title=(output.title or "") if output is not None else "",
        summary=(output.summary or "") if output is not None else "",
        app_slug=run.app.slug if run.app is not None else "",
        html_url=run.html_url or "",
        details_url=run.details_url or "",
        started_at=_when(run.started_at),
        completed_at=_when(run.completed_at),
    )


def _pull_summary(pull: Any) -> PullSummary:
    return PullSummary(
        number=int(pull.number),
        title=pull.title or "",
        html_url=pull.html_url or "",
        head_ref=pull.head.ref,
        head_sha=pull.head.sha,
        base_ref=pull.base.ref,
        merged_at=_when(pull.merged_at),
    )


def _status(status: Any) -> CommitStatus:
    return CommitStatus(
        id=status.id,
        context=status.context or "",
        state=status.state or "",
        description=status.description or "",
        target_url=status.target_url or "",
        created_at=_when(status.created_at),
    )
