"""The errors services raise: each carries a one-line, user-facing message.

The UI and the CLI show ``str(error)`` in one place and never a traceback.
Messages may quote untrusted text (ref names, git's stderr); they are
sanitized here, once, so every caller can print them as they are.
"""

from __future__ import annotations

import errno

from syncdesk.services.sanitize import one_line


class ServiceError(Exception):
    """A failure the user can understand and act on."""

    title = "syncdesk"

    def __init__(self, message: str, title: str | None = None) -> None:
        super().__init__(one_line(message))
        if title is not None:
            self.title = title

    @property
    def message(self) -> str:
        """The sanitized one-line message."""
        return str(self.args[0])


class NotARepositoryError(ServiceError):
    title = "Not a repository"


class MissingRefError(ServiceError):
    title = "Missing branch or ref"


class ShallowHistoryError(ServiceError):
    title = "Shallow clone"


class GitTooOldError(ServiceError):
    title = "git too old"


class GitCommandError(ServiceError):
    title = "git failed"


class ConfigError(ServiceError):
    title = "Configuration"


class Cancelled(ServiceError):
    """Raised between steps when the user cancelled long work."""

    title = "Cancelled"


class BranchMovedError(ServiceError):
    """A branch was not where it was read: a compare-and-swap refused to move it."""

    title = "Branch moved"


class RefLockedError(ServiceError):
    """git could not lock a ref (a ``.lock`` file exists): another git may be running."""

    title = "Branch locked"


class NothingToDoError(ServiceError):
    """The request would change nothing (no approved change, nothing to undo)."""

    title = "Nothing to do"


_OS_HINTS = {
    errno.EFBIG: " (a file-size limit: see ulimit -f)",
    errno.ENOSPC: " (the disk is full)",
    errno.EDQUOT: " (the disk quota is used up)",
}


def os_reason(error: OSError) -> str:
    """An OSError as the one line a user reads: the system's words, and what they usually mean."""
    reason = error.strerror or str(error) or type(error).__name__
    return reason + _OS_HINTS.get(error.errno or 0, "")


def error_line(error: BaseException) -> str:
    """One line describing ``error`` for the user, never a traceback.

    A :class:`ServiceError` says its own message; an OSError the system's words
    (:func:`os_reason`); anything else is a bug, named as an internal error.
    """
    if isinstance(error, ServiceError):
        return error.message
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return one_line(f"{where}{os_reason(error)}")
    return one_line(f"internal error: {type(error).__name__}: {error}")
