"""Push a rewritten sync branch with a lease, and say in one line how it went.

The command is always (``<ref>`` = ``refs/heads/<branch>``)::

    git push --porcelain --force-with-lease=<ref>:<expected> <remote> <ref>:<ref>

- never ``--force``, never a bare ``--force-with-lease`` (its expected value
  would be whatever a background ``git fetch`` last wrote into the
  remote-tracking ref); ``<expected>`` is a full object id, or empty for
  "the branch must not exist there yet" (an abbreviated id is never expanded
  by git and always fails as "stale info");
- no credential ever on the command line or in the URL: git's own
  credential helper answers, and terminal prompts are off (a prompt would
  write over the TUI), so missing credentials fail with a clear line;
- the repository's own ``pre-push`` hook runs, as it would for ``git push``
  (it is the maintainer's, often the preservation audit): every other git
  command syncdesk runs has hooks disabled.

:func:`lease_for` picks the expected value: the remote-tracking ref, but only
if the local branch has contained that commit at some point (the branch's
history or one of syncdesk's backups), the check ``--force-if-includes``
makes: a tracking ref moved by a background fetch to a commit nobody here has
seen is not a lease to overwrite it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.errors import BranchMovedError, MissingRefError, ServiceError
from syncdesk.services.git.refs import branch_ref, list_backups
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.git.storage import is_oid
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.config import user_config_path
from syncdesk.services.write.models import PushResult

# What git (and ssh) say when credentials are missing or refused.
_AUTH_WORDS = (
    "Authentication failed",
    "could not read Username",
    "terminal prompts disabled",
    "Permission denied",
)


@dataclass(frozen=True, slots=True)
class _Line:
    flag: str
    summary: str
    reason: str


def push_url(git: Git, remote: str) -> str:
    """Where a push to ``remote`` goes: its push URL after ``pushInsteadOf``, as git uses it.

    Raises :class:`ServiceError` when no remote of that name exists.
    """
    found = git.run(["remote", "get-url", "--push", "--", remote], check=False)
    if found.status != 0:
        raise ServiceError(_no_remote(git, remote))
    return found.text.strip()


def _no_remote(git: Git, remote: str) -> str:
    """Why there is nowhere to push, and what would make a push possible; nothing was pushed."""
    remotes = git.run(["remote"], check=False).text.split()
    setting = f'remote = "NAME" in {user_config_path()}'
    if not remotes:
        return (
            "nothing to push to: this repository has no remote (add one with "
            f"`git remote add {one_line(remote)} URL`); nothing was pushed"
        )
    names = ", ".join(one_line(name) for name in remotes)
    return (
        f"no remote named {one_line(remote)!r} to push to (this repository has: {names}; "
        f"choose one with {setting}); nothing was pushed"
    )


def lease_for(git: Git, remote: str, branch: str) -> str:
    """The full id the remote's branch is expected at ("" if it should not exist there yet).

    Raises :class:`BranchMovedError` when the remote-tracking ref names a commit
    the local branch never held: someone pushed since, and it must be looked at first.
    """
    short, ref = branch_ref(git, branch)
    tracking = f"refs/remotes/{remote}/{short}"
    expected = git.run(["rev-parse", "--verify", "--quiet", tracking], check=False).text.strip()
    if not expected:
        return ""
    if git.run(["rev-parse", "--verify", "--quiet", ref], check=False).status != 0:
        raise MissingRefError(f"no local branch named {one_line(short)!r} to push")
    known = git.is_ancestor(expected, ref) or any(
        expected in (backup.before, backup.after) for backup in list_backups(git, short)
    )
    if not known:
        raise BranchMovedError(
            f"{one_line(remote)}/{one_line(short)} is at {expected[:12]}, a commit "
            f"{one_line(short)} never held: someone pushed since; fetch and look before "
            "pushing; nothing was pushed"
        )
    return expected


def push_with_lease(
    git: Git, remote: str, branch: str, expected: str, *, head: str | None = None
) -> PushResult:
    """Push ``branch`` to ``remote`` only if the remote's branch is at ``expected``.

    With ``head`` (the commit the user confirmed), exactly that commit is
    pushed, and only while the local branch is still there: a branch that
    moved after the question was asked is refused, not pushed.
    """
    short, ref = branch_ref(git, branch)
    if expected and not is_oid(expected):
        raise ServiceError(f"a lease needs a full commit id, not {one_line(expected)!r}")
    source = ref
    if head is not None:
        now = git.run(["rev-parse", "--verify", "--quiet", ref], check=False).text.strip()
        if now != head:
            raise BranchMovedError(
                f"{one_line(short)} moved since you confirmed the push: it is at {now[:12]}, "
                f"you confirmed {head[:12]}; nothing was pushed"
            )
        source = head
    result = git.run(
        [*_user_hooks(git), "push", "--porcelain", f"--force-with-lease={ref}:{expected}",
         "--", remote, f"{source}:{ref}"],
        check=False,
    )  # fmt: skip
    return classify(result.status, result.text, result.stderr, remote, short, expected)


def classify(
    status: int, stdout: str, stderr: str, remote: str, branch: str, expected: str
) -> PushResult:
    """Turn ``git push --porcelain``'s answer into one line (also used by tests)."""
    where = f"{one_line(remote)}/{one_line(branch)}"
    line = _ref_line(stdout)
    if line is not None and line.flag in (" ", "+", "*") and status == 0:
        return PushResult(True, f"pushed {where}: {one_line(line.summary)}", "pushed")
    if line is not None and line.flag == "=":
        return PushResult(True, f"{where} is already up to date", "up-to-date")
    if line is not None and line.flag == "!":
        if "stale info" in line.reason:
            was = f"at {expected[:12]}" if expected else "absent"
            return PushResult(
                False,
                f"push refused: {where} is no longer {was}, as it was when read "
                "(someone pushed since); nothing was pushed",
                "stale-lease",
            )
        return PushResult(
            False, f"push rejected by {one_line(remote)}: {one_line(line.reason)}", "rejected"
        )
    reason = first_line(stderr)
    if any(word in stderr for word in _AUTH_WORDS):
        return PushResult(
            False,
            f"push failed: git has no credentials for {one_line(remote)} "
            f"(set up a credential helper); {reason}",
            "auth",
        )
    if "pre-push hook" in stderr or (status != 0 and line is None and "hook" in stderr):
        return PushResult(False, f"push stopped by the pre-push hook: {reason}", "hook")
    return PushResult(False, f"push failed: {reason}", "failed")


def _ref_line(stdout: str) -> _Line | None:
    """The porcelain line of the pushed ref: ``<flag>\\t<from>:<to>\\t<summary> (<reason>)``."""
    for raw in stdout.splitlines():
        parts = raw.split("\t")
        if len(parts) >= 3 and len(parts[0]) == 1:
            summary = parts[2]
            reason = summary[summary.find("(") + 1 : summary.rfind(")")] if "(" in summary else ""
            return _Line(parts[0], summary, reason)
    return None


def _user_hooks(git: Git) -> list[str]:
    """``-c core.hooksPath=<the user's hooks>``: lifts Git's hooks-off default, for push only.

    ``git config --get`` would answer with our own ``-c core.hooksPath=/dev/null``,
    so the setting is read with its scope and the command line's is skipped.
    """
    listed = git.run(
        ["config", "--show-scope", "--path", "--get-all", "core.hooksPath"], check=False
    ).text
    configured = [
        value
        for scope, _, value in (line.partition("\t") for line in listed.splitlines())
        if scope != "command"
    ]
    if configured:
        hooks = Path(configured[-1])
        if not hooks.is_absolute():  # relative to where hooks run: the top of the work tree
            hooks = (git.work_tree or git.git_dir) / hooks
    else:  # not --git-path hooks: that answers with core.hooksPath, our /dev/null
        common = git.text("rev-parse", "--path-format=absolute", "--git-common-dir").strip()
        hooks = Path(common) / "hooks"
    return ["-c", f"core.hooksPath={hooks}"]
