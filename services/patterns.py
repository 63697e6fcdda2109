"""Paths named by the configuration's patterns: a path, a directory, or a glob."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence


def listed(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` is one of ``patterns``: a path, a directory (all below it), or a glob.

    A glob is matched against the whole path (``*`` crosses ``/``, as in git's
    own pathspecs: ``*.json`` names every JSON file in the tree).
    """
    for pattern in patterns:
        directory = pattern.rstrip("/") + "/"
        if path == pattern or path.startswith(directory) or fnmatch.fnmatchcase(path, pattern):
            return True
    return False
