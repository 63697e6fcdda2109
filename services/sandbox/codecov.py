"""Codecov API v2 on the sandbox: the comparison and pull views of one pull request.

Shapes follow Codecov's serializers (``tests/data/github/codecov_api_v2_shapes.json``):
``ComparisonSerializer`` for ``compare/?pullid=N`` and ``PullSerializer`` for
``pulls/{pullid}/``. Patch coverage is ``totals.patch.coverage``; the texts
the GitHub side shows are :func:`patch_status_text`.
"""

from __future__ import annotations

import re
from typing import Any

from syncdesk.services.sandbox.scenario import CodecovFile, CodecovSpec
from syncdesk.services.sandbox.store import Store

JSON = dict[str, Any]

CODECOV_PREFIX = "/api/v2/github/"
_COMPARE = re.compile(r"^/api/v2/github/(?P<owner>[^/]+)/repos/(?P<repo>[^/]+)/compare/?$")
_PULL = re.compile(r"^/api/v2/github/(?P<owner>[^/]+)/repos/(?P<repo>[^/]+)/pulls/(?P<n>\d+)/?$")


def patch_status_text(spec: CodecovSpec) -> str:
    """Codecov's ``codecov/patch`` text: ``"70.14% of diff hit (target 80.00%)"``."""
    return f"{spec.patch_coverage:.2f}% of diff hit (target {spec.target:.2f}%)"


def totals(hits: int, misses: int, partials: int, files: int = 1) -> JSON:
    """``ReportTotals``: coverage = hits / lines * 100, rounded to 2 places."""
    lines = hits + misses + partials
    return {
        "files": files,
        "lines": lines,
        "hits": hits,
        "misses": misses,
        "partials": partials,
        "coverage": round(100.0 * hits / lines, 2) if lines else 0,
        "branches": 0,
        "methods": 0,
        "messages": 0,
        "sessions": 1,
        "complexity": 0.0,
        "complexity_total": 0.0,
        "complexity_ratio": 0,
        "diff": 0,
    }


def _scaled(coverage: float, lines: int = 10_000) -> JSON:
    hits = round(lines * coverage / 100.0)
    return totals(hits, lines - hits, 0, files=60)


def _file(item: CodecovFile) -> JSON:
    counted = [line for line in item.lines if line.coverage is not None]
    hits = sum(1 for line in counted if line.coverage == 0)
    misses = sum(1 for line in counted if line.coverage == 1)
    partials = sum(1 for line in counted if line.coverage == 2)
    return {
        "name": {"base": item.path, "head": item.path},
        "totals": {
            "base": _scaled(item.base_coverage, 200),
            "head": _scaled(item.head_coverage, 200),
            "patch": totals(hits, misses, partials),
        },
        "has_diff": True,
        "stats": {"added": sum(1 for line in item.lines if line.added), "removed": 0},
        "change_summary": {},
        "lines": [
            {
                "value": line.value,
                "number": {"base": None, "head": line.number},
                "coverage": {"base": None, "head": line.coverage},
                "is_diff": True,
                "added": line.added,
                "removed": False,
                "sessions": 1,
            }
            for line in item.lines
        ],
    }


def comparison(spec: CodecovSpec) -> JSON:
    """``compare/?pullid=N``."""
    return {
        "base_commit": spec.base_commit,
        "head_commit": spec.head_commit,
        "totals": {
            "base": _scaled(spec.base_coverage),
            "head": _scaled(spec.head_coverage),
            "patch": totals(
                spec.patch_hits, spec.patch_misses, spec.patch_partials, len(spec.files)
            ),
        },
        "commit_uploads": [],
        "diff": {"git_commits": []},
        "files": [_file(item) for item in spec.files],
        "untracked": [],
        "has_unmerged_base_commits": False,
    }


def pull(spec: CodecovSpec) -> JSON:
    """``pulls/{pullid}/``, with the ``patch`` totals Codecov added in 2025."""
    patch = totals(spec.patch_hits, spec.patch_misses, spec.patch_partials)
    return {
        "pullid": spec.pullid,
        "title": spec.title,
        "base_totals": _scaled(spec.base_coverage),
        "head_totals": _scaled(spec.head_coverage),
        "updatestamp": "2025-01-06T09:30:00.000000Z",
        "state": spec.state,
        "ci_passed": spec.ci_passed,
        "author": {"service": "github", "username": spec.author, "name": spec.author},
        "patch": {key: patch[key] for key in ("hits", "misses", "partials", "coverage")},
    }


def handle(store: Store, path: str, query: dict[str, list[str]]) -> tuple[int, JSON]:
    """Answer a Codecov route: ``(status, body)``; DRF's ``{"detail": ...}`` on errors."""
    match = _COMPARE.match(path) or _PULL.match(path)
    if match is None or not store.repo_matches(match["owner"], match["repo"]):
        return 404, {"detail": "Not found."}
    if "n" in match.groupdict():
        found = store.codecov(int(match["n"]))
        return (200, pull(found)) if found else (404, {"detail": "Not found."})
    if "pullid" in query:
        try:
            found = store.codecov(int(query["pullid"][0]))
        except ValueError:
            return 400, {"detail": "pullid must be an integer"}
    else:
        base, head = query.get("base", [""])[0], query.get("head", [""])[0]
        found = next(
            (c for c in store.scenario.codecov if c.base_commit == base and c.head_commit == head),
            None,
        )
    return (200, comparison(found)) if found else (404, {"detail": "Not found."})
