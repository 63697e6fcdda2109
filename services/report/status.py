"""The status side of ``syncdesk report``: ``dco``, ``coverage``, ``checks``, ``pr_body_check``."""

from __future__ import annotations

from typing import Any

from syncdesk.services.description.check import body_check_json
from syncdesk.services.github.status import StatusData
from syncdesk.services.sanitize import one_line


def status_json(data: StatusData) -> dict[str, Any]:
    """The four status sections (see ``docs/report-schema.md``).

    Print it with :func:`~syncdesk.services.report.serialize.to_json_text`, which
    sanitises every string; ``one_line`` here only keeps one-line fields on one line.
    """
    dco, coverage, checks = data.dco, data.coverage, data.checks
    github = dco.github
    return {
        "dco": {
            "checked": dco.checked,
            "failing": [
                {
                    "sha": f.sha,
                    "author": one_line(f.author),
                    "reason": one_line(f.reason),
                    "imported": f.imported,
                }
                for f in dco.failures
            ],
            "skipped": len(dco.skipped),
            "github": None
            if github is None
            else {
                "source": github.source,
                "status": github.status,
                "conclusion": github.conclusion,
                "url": github.html_url,
            },
            "agrees": dco.agrees,
            "needs_override": dco.needs_override,
            "precedent": [p.number for p in data.precedent],
        },
        "coverage": {
            "patch": {
                "coverage": coverage.coverage,
                "target": coverage.target,
                "below_target": coverage.below_target,
                "source": coverage.coverage_source,
                "text": one_line(coverage.text),
                "uncovered": [
                    {"path": one_line(u.path), "lines": list(u.lines)} for u in coverage.uncovered
                ],
                "ours_uncovered": [
                    {"path": one_line(path), "line": line} for path, line in coverage.ours_uncovered
                ],
            }
        },
        "checks": {
            "state": checks.state,
            "gate": None if checks.gate is None else checks.gate.state,
            "source": data.checks_source,
            "items": [
                {
                    "name": one_line(item.name),
                    "kind": item.kind,
                    "kinds": list(item.kinds or (item.kind,)),
                    "state": item.state,
                    "group": item.group,
                    "finished": item.finished,
                }
                for item in checks.items
            ],
            "missing": [one_line(name) for name in checks.missing],
        },
        "pr_body_check": body_check_json(data.body),
    }
