"""Cited paths as the reviewer wrote them, found in the tree they were written against.

People cite files by a short name in prose ("``batcher.py`` line 40", "serving/batcher.py:40");
a cited range needs the path from the repository's root. :func:`resolve_cited_paths`
lists the tree of a commit once and gives each range the one path that ends with what
the reviewer wrote (on a ``/`` boundary). A name that is in the tree already, or that
matches no file or several, is kept as written: the blame then says the file is not at
the head, and the maintainer sees the name the reviewer used. Only prose citations are looked up: a
blob link or an inline comment names the full path at its own commit.

A blob link's ref is its first segment (``/blob/<sha>/path``), but a branch or tag name
may hold slashes (``/blob/main2dev/13_08_2026/train.py``): the URL alone cannot say where
the ref ends. :func:`resolve_cited_paths` asks the repository: when the first segment
names no commit, the longest run of leading segments that names one of its refs is the
ref, the rest the path (``git for-each-ref``, once, only when a link needs it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from syncdesk.services.git.runner import Git
from syncdesk.services.review.models import CitedRange, Finding


def resolve_cited_paths(git: Git, rev: str, findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with every cited path that is not in ``rev``'s tree found in it by its end.

    One ``ls-tree`` when some path needs it, none otherwise.
    """
    findings = _link_refs(git, findings)
    wanted = {
        cited.path for finding in findings for cited in finding.ranges if cited.source == "prose"
    }
    if not wanted:
        return list(findings)
    tree = git.fields("ls-tree", "-r", "-z", "--name-only", "--full-tree", rev)
    found = full_paths(wanted, tree)
    return [
        replace(finding, ranges=tuple(_resolved(cited, found) for cited in finding.ranges))
        for finding in findings
    ]


def full_paths(names: Iterable[str], tree: Iterable[str]) -> dict[str, str]:
    """For each name not in ``tree``: the one tree path ending in ``/<name>``, if exactly one."""
    paths = set(tree)
    missing = {name.strip("/") for name in names if name not in paths and name.strip("/")}
    if not missing:
        return {}
    candidates: dict[str, list[str]] = {name: [] for name in missing}
    for path in paths:
        parts = path.split("/")
        for first in range(1, len(parts)):
            tail = "/".join(parts[first:])
            if tail in candidates:
                candidates[tail].append(path)
    return {name: hits[0] for name, hits in candidates.items() if len(hits) == 1}


def _resolved(cited: CitedRange, found: dict[str, str]) -> CitedRange:
    if cited.source != "prose":  # a link or an anchor names the full path at its commit
        return cited
    path = found.get(cited.path.strip("/"))
    return cited if path is None else replace(cited, path=path)


_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_REF_PREFIXES = ("refs/heads/", "refs/tags/", "refs/remotes/")


def _link_refs(git: Git, findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each blob link whose ref holds slashes split where the ref ends."""
    doubtful = any(
        cited.source == "link" and cited.commit and not _SHA.fullmatch(cited.commit)
        for finding in findings
        for cited in finding.ranges
    )
    if not doubtful:
        return list(findings)
    names = _ref_names(git)
    return [
        replace(finding, ranges=tuple(_split_ref(cited, names) for cited in finding.ranges))
        for finding in findings
    ]


def _ref_names(git: Git) -> frozenset[str]:
    """Every name a ref goes by: ``main2dev/13_08``, ``v1.2``, ``origin/main2dev/13_08``."""
    names: set[str] = set()
    for ref in git.lines("for-each-ref", "--format=%(refname)"):
        for prefix in _REF_PREFIXES:
            if ref.startswith(prefix):
                short = ref[len(prefix) :]
                names.add(short)
                if prefix == "refs/remotes/" and "/" in short:
                    names.add(short.split("/", 1)[1])  # origin/x is also reached as x
    return frozenset(names)


def _split_ref(cited: CitedRange, names: frozenset[str]) -> CitedRange:
    if cited.source != "link" or not cited.commit or _SHA.fullmatch(cited.commit):
        return cited
    segments = [cited.commit, *cited.path.split("/")]
    for cut in range(len(segments) - 1, 0, -1):  # the longest ref first
        ref = "/".join(segments[:cut])
        if ref in names:
            return replace(cited, commit=ref, path="/".join(segments[cut:]))
    return cited
