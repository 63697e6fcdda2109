"""The configured conflict policies: files kept from dev, files taken from main.

DOMAIN.md: ``.github/CODEOWNERS`` and the dependency triple stay byte-identical
to dev; a short list of files takes main's version wholesale. A policy
resolves a file by default; any decision of the maintainer overrides it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from syncdesk.services.sync.config import Config

KEEP_DEV = "keep-dev"
OVERRIDE_FROM_MAIN = "override-from-main"


def listed(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` is one of ``patterns``: a path, a directory (all below it), or a glob."""
    for pattern in patterns:
        directory = pattern.rstrip("/") + "/"
        if path == pattern or path.startswith(directory) or fnmatch.fnmatchcase(path, pattern):
            return True
    return False


def policy_for(path: str, config: Config) -> str | None:
    """The configured policy for ``path``: keep dev's file, take main's, or none."""
    if listed(path, config.keep_dev):
        return KEEP_DEV
    if listed(path, config.override_from_main):
        return OVERRIDE_FROM_MAIN
    return None
