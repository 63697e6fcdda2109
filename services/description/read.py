"""A pull request description read from a file, for the offline check (``report --body-file``).

A description is text: a file that holds NUL bytes, is not UTF-8 or is far
larger than any description is refused with one line naming the file, before
any git work starts. A UTF-8 byte-order mark is dropped.
"""

from __future__ import annotations

from pathlib import Path

from syncdesk.services.errors import ServiceError, os_reason
from syncdesk.services.sanitize import one_line

# Far above GitHub's limit on a description (65,536 characters, at most 4 bytes each).
MAX_BYTES = 4 * 1024 * 1024


class DescriptionFileError(ServiceError):
    """The description could not be read as text."""

    title = "PR description"


def read_description(path: Path) -> str:
    """The text of the description in ``path``; :class:`DescriptionFileError` if it is none."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        reason = os_reason(error)
        raise DescriptionFileError(f"cannot read {one_line(str(path))}: {reason}") from None
    return description_text(data, str(path))


def description_text(data: bytes, name: str) -> str:
    """``data`` as a description's text; if it is not text, a one-line error naming ``name``."""
    shown = one_line(name)
    if len(data) > MAX_BYTES:
        size = f"{MAX_BYTES // (1024 * 1024)} MiB"
        raise DescriptionFileError(f"{shown} is larger than {size}: not a pull request description")
    if b"\0" in data:
        raise DescriptionFileError(f"{shown} is binary (it holds NUL bytes), not a description")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DescriptionFileError(
            f"{shown} is not UTF-8 text (an invalid byte at offset {error.start})"
        ) from None
