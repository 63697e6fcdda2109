"""The ``pr_body_check`` section of ``syncdesk report --body-file``: a description checked offline.

The check is :func:`~syncdesk.services.description.check.verify_body` against
the report's slice, the one the Status screen runs on the pull request's body,
and it says the same lines; here the description comes from a file and no
GitHub is involved. JSON is the status section's shape (``docs/report-schema.md``).
"""

from __future__ import annotations

from typing import Any

from syncdesk.services.description.check import BodyCheck, body_check_json, check_lines
from syncdesk.services.sanitize import markdown_cell, one_line


def offline_check_json(check: BodyCheck) -> dict[str, Any]:
    """``{"pr_body_check": ...}``, as ``report --with-pr`` fills it from the pull request."""
    return {"pr_body_check": body_check_json(check)}


def offline_check_text(check: BodyCheck, source: str) -> str:
    """The section as plain text: a title naming ``source``, then one marked line each."""
    lines = ["", f"PR description (checked offline: {one_line(source)})"]
    lines += [f"{_mark(good)} {one_line(line)}" for good, line in check_lines(check)]
    return "\n".join(lines) + "\n"


def offline_check_markdown(check: BodyCheck, source: str) -> str:
    """The section as Markdown, every line escaped like a table cell (no HTML, no mention)."""
    lines = ["", "### PR description", "", f"Checked offline: {markdown_cell(source)}", ""]
    lines += [f"- {_mark(good)} {markdown_cell(line)}" for good, line in check_lines(check)]
    return "\n".join(lines) + "\n"


def _mark(good: bool) -> str:
    return "✓" if good else "✗"
