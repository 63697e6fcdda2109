"""Findings in review tables: a priority table joined to the findings by id.

A long review often opens with a table, one row per finding, and details each finding
below it: ``| ID | Review priority | Area | Related PRs |`` then ``| R07 | Important |
Correctness | ... |``. :func:`id_rows` reads such tables: a row is a finding's when its
id column (headed ``ID``, ``#``, ``Ref``, ``Finding ID`` or ``Key``, else the first column
holding an id) names one. The columns it knows by their header give the finding's
severity (priority, severity, level, impact, risk), category (area, category, kind,
type, component, topic), title (title, summary, finding, issue, problem, concern,
description) and status (status, state, resolution). Every other column is kept in
the row's text.

A table without an id column gives findings only when its rows cite code and say what
is wrong: a file (or path) column, a lines column or a severity column, and an issue
column (``| Priority | File | Lines | Issue |``): :func:`cited_rows`. A per-file summary
(``| File | Description |``) or the maintainer's dispositions table cites no lines and
grades nothing: its rows describe, they are no findings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from syncdesk.services.review.reading import Table, TableRow
from syncdesk.services.review.severity import SEVERITY, severity_word

_CELL_ID = re.compile(r"[*_`]*(?:([FR])0*(\d{1,6})|#0*(\d{1,6}))[*_`]*")
_ID_HEADER = re.compile(r"(?i:id|#|ref|key|no\.?|finding[ \t]+id)")
_COLUMNS = {
    "severity": re.compile(r"(?i:priority|severity|level|impact|risk|grade)"),
    "category": re.compile(r"(?i:area|category|kind|type|component|topic)"),
    "title": re.compile(r"(?i:title|summary|finding|issue|problem|concern|description)"),
    "status": re.compile(r"(?i:status|state|resolution|outcome)"),
}
_SEVERITY = re.compile(SEVERITY)
_FILE_HEADER = re.compile(r"(?i:files?(?:[ \t]*names?)?|filename|path|location)")
_LINES_HEADER = re.compile(r"(?i:lines?(?:[ \t]*(?:numbers?|range))?|range|ln)")
_LINES_CELL = re.compile(r"L?(\d{1,9})(?:[ \t]*(?:-|–|—|to)[ \t]*L?(\d{1,9}))?")
_STATUS = (
    (re.compile(r"(?i:\bsuperseded\b)"), "superseded"),
    (re.compile(r"(?i:\b(?:open|unresolved|pending|outstanding)\b)"), "unresolved"),
    (re.compile(r"(?i:\b(?:closed|fixed|resolved|addressed|done)\b)"), "closed"),
)


@dataclass(frozen=True, slots=True)
class IdRow:
    """What a table row says about the finding its id names."""

    id: str
    severity: str
    category: str
    title: str
    status: str
    text: str  # "Area: Packaging; Related PRs: #4420": the row in words, its id left out
    start: int
    end: int


def id_rows(tables: Sequence[Table]) -> dict[str, IdRow]:
    """The rows of ``tables`` that name a finding, by id (an id's first row wins)."""
    found: dict[str, IdRow] = {}
    for table in tables:
        id_column = _id_column(table)
        if id_column < 0:
            continue
        columns = {
            role: _column(table.header, pattern, id_column) for role, pattern in _COLUMNS.items()
        }
        for row in table.rows:
            read = _read_row(table.header, row, id_column, columns)
            if read is not None:
                found.setdefault(read.id, read)
    return found


def _id_column(table: Table) -> int:
    for index, name in enumerate(table.header):
        if _ID_HEADER.fullmatch(name.strip()):
            return index
    width = max((len(row.cells) for row in table.rows), default=0)
    for index in range(width):
        if any(_cell_id(_cell(row.cells, index)) for row in table.rows):
            return index
    return -1


def _column(header: Sequence[str], pattern: re.Pattern[str], id_column: int) -> int:
    return next((i for i, name in enumerate(header) if i != id_column and pattern.search(name)), -1)


def _read_row(
    header: Sequence[str], row: TableRow, id_column: int, columns: dict[str, int]
) -> IdRow | None:
    finding_id = _cell_id(_cell(row.cells, id_column))
    if not finding_id:
        return None
    severity = _SEVERITY.search(_cell(row.cells, columns["severity"]))
    status = _cell(row.cells, columns["status"])
    words = [
        f"{header[i]}: {cell}" if i < len(header) and header[i].strip() else cell
        for i, cell in enumerate(row.cells)
        if i != id_column and cell.strip()
    ]
    return IdRow(
        finding_id,
        severity_word(severity.group(1)) if severity else "",
        _cell(row.cells, columns["category"]),
        _cell(row.cells, columns["title"]),
        next((word for pattern, word in _STATUS if pattern.search(status)), ""),
        "; ".join(words),
        row.start,
        row.end,
    )


def _cell(cells: Sequence[str], index: int) -> str:
    return cells[index].strip() if 0 <= index < len(cells) else ""


def _cell_id(cell: str) -> str:
    match = _CELL_ID.fullmatch(cell.strip())
    if match is None:
        return ""
    if match.group(3):
        return f"#{int(match.group(3))}"
    return f"{match.group(1)}{int(match.group(2))}"


@dataclass(frozen=True, slots=True)
class CitedRow:
    """A row of a table without ids that cites code and says what is wrong there."""

    severity: str
    category: str
    title: str
    path: str
    first: int  # 0: the row names no lines
    last: int
    text: str  # the row in words
    start: int
    end: int


def cited_rows(tables: Sequence[Table]) -> list[CitedRow]:
    """The rows of the tables without an id column that are findings (see the module)."""
    found: list[CitedRow] = []
    for table in tables:
        if _id_column(table) >= 0:
            continue
        header = table.header
        path = next(
            (i for i, name in enumerate(header) if _FILE_HEADER.fullmatch(name.strip())), -1
        )
        lines = next(
            (i for i, name in enumerate(header) if _LINES_HEADER.fullmatch(name.strip())), -1
        )
        severity = _column(header, _COLUMNS["severity"], -1)
        title = _column(header, _COLUMNS["title"], -1)
        if path < 0 or title < 0 or (lines < 0 and severity < 0):
            continue
        for row in table.rows:
            cited = _cited_row(header, row, path, lines, severity, title)
            if cited is not None:
                found.append(cited)
    return found


def _cited_row(
    header: Sequence[str], row: TableRow, path: int, lines: int, severity: int, title: int
) -> CitedRow | None:
    where, what = _cell(row.cells, path).strip("`"), _cell(row.cells, title)
    if not where or not what:
        return None
    span = _LINES_CELL.fullmatch(_cell(row.cells, lines).strip())
    first = int(span.group(1)) if span else 0
    last = int(span.group(2)) if span and span.group(2) else first
    graded = _SEVERITY.search(_cell(row.cells, severity))
    words = [
        f"{header[i]}: {cell}" if i < len(header) and header[i].strip() else cell
        for i, cell in enumerate(row.cells)
        if cell.strip()
    ]
    return CitedRow(
        severity_word(graded.group(1)) if graded else "",
        _cell(row.cells, _column(header, _COLUMNS["category"], -1)),
        what,
        where,
        min(first, last),
        max(first, last),
        "; ".join(words),
        row.start,
        row.end,
    )


def _named(header: Sequence[str], pattern: re.Pattern[str]) -> int:
    """The first column whose whole header ``pattern`` matches, -1 when none does."""
    return next((i for i, name in enumerate(header) if pattern.fullmatch(name.strip())), -1)
