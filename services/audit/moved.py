"""Lines the result holds elsewhere or laid out otherwise: *moved* and *reformatted*.

Rules 5 to 7 and 10 of the triage (the numbered list is in
:mod:`~syncdesk.services.audit.lost_lines`): a Python statement the result holds
wrapped another way (5); a line put into another file by the merge or the repair,
else held in its own file ignoring all whitespace and quote style (6, 7); a line
inside a statement a formatter joined or split (7); a line of a function main
moved into another file, under its name or another (10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from syncdesk.services.audit.classified import Classified, PlacedLine, finding
from syncdesk.services.audit.lines import Reflow, is_trivial, loosen_all, squeeze
from syncdesk.services.audit.model import Classification, LostLine
from syncdesk.services.audit.names import definition_name
from syncdesk.services.audit.sources import Snapshot
from syncdesk.services.audit.statements import is_python, line_invariant, rewrap_invariant
from syncdesk.services.audit.superseded import kept_words
from syncdesk.services.audit.sync_facts import SyncFacts, normal_form, normal_forms
from syncdesk.services.sanitize import decode


def rewrapped(
    facts: SyncFacts, classified: Classified, items: list[PlacedLine]
) -> list[PlacedLine]:
    """Rule 5: classify as *reformatted* the lines of Python statements the result holds
    wrapped another way, or with only their comment changed; return the rest."""

    def found(path: str, lost: list[PlacedLine]) -> dict[int, int]:
        return _rewrapped_lines(facts, path, lost) if is_python(path) else {}

    return _reformatted_by_file(classified, items, found)


def _reformatted_by_file(
    classified: Classified,
    items: list[PlacedLine],
    finder: Callable[[str, list[PlacedLine]], dict[int, int]],
) -> list[PlacedLine]:
    """Classify as reformatted the lines ``finder`` places in the result (one file's lost
    lines -> their dev line: its result line); return the rest."""
    by_path: dict[str, list[PlacedLine]] = {}
    for item in items:
        by_path.setdefault(item.path, []).append(item)
    left: list[PlacedLine] = []
    for path, lost in by_path.items():
        found = finder(path, lost)
        for item in lost:
            if item.line in found:
                classified.add(
                    finding(item, Classification.REFORMATTED, evidence_line=found[item.line])
                )
            else:
                left.append(item)
    return left


def _rewrapped_lines(facts: SyncFacts, path: str, lost: list[PlacedLine]) -> dict[int, int]:
    """Lost dev lines (1-based) whose statement the result holds laid out otherwise ->
    the result line where that statement starts."""
    change = facts.snapshot.changed[path]
    # Two tests at C speed rule most files out before all their statements are read
    # (on 13_08, 13 of 44 files by the first, 12 more by the second; the whole test's
    # CPU went from 60 to 37 ms on 08_05, 118 to 80 ms on 30_07). Each is necessary: a
    # rewrapped statement's key, and each line of it, lie whole in the rewrap
    # invariant of the result's code (statements.rewrap_invariant).
    invariant = rewrap_invariant(facts.scan(change.after).code)
    if not any(not (part := line_invariant(item.raw)) or part in invariant for item in lost):
        return {}
    dev, result = facts.snapshot.lines(change.before), facts.snapshot.lines(change.after)
    statements = facts.statements(change.before)
    # The dev statements holding a lost line (found by their first lines, not by
    # walking every statement of the file), with the lost lines each holds.
    holding: dict[int, list[int]] = {}  # index in statements -> its lost lines (0-based)
    for item in lost:
        if (at := facts.statement_at(change.before, item.line - 1)) is not None:
            holding.setdefault(at, []).append(item.line - 1)
    keys = {statements[at][2] for at in holding if not is_trivial(statements[at][2])}
    if not any(rewrap_invariant(key) in invariant for key in keys):
        return {}
    in_result: dict[bytes, list[tuple[int, int]]] = {}
    for first, last, key in facts.statements(change.after):
        if key in keys:
            in_result.setdefault(key, []).append((first, last))
    on_dev = Counter(key for _, _, key in statements if key in keys)
    found: dict[int, int] = {}
    for at in sorted(holding):
        first, last, key = statements[at]
        here = sorted(holding[at])
        # The result must keep as many copies of the statement as dev had: a
        # common statement of a dropped test stays lost however it is wrapped.
        if key not in keys or len(in_result.get(key, ())) < on_dev[key]:  # trivial, or fewer
            continue
        layout = [line.strip() for line in dev[first : last + 1]]
        for start, end in in_result[key]:
            # The same lines are the same statement: that copy is not this one's rewrap.
            # (One line against one line differs in its comment only.)
            if [line.strip() for line in result[start : end + 1]] != layout:
                found.update((index + 1, start + 1) for index in here)
                break
    return found


def moved_or_reformatted(
    facts: SyncFacts, classified: Classified, pending: list[PlacedLine]
) -> list[PlacedLine]:
    """Rules 6 and 7: classify the lines the result holds in another file (*moved*), else
    in their own file ignoring all whitespace and quote style (*reformatted*); return the
    rest."""
    snapshot = facts.snapshot
    gained = _gained_lines(snapshot, {normal_form(item.raw) for item in pending})
    wanted: dict[str, set[bytes]] = {}
    for item in pending:
        wanted.setdefault(item.path, set()).add(_squeezed_form(item.raw))
    unexplained: list[PlacedLine] = []
    squeezed: dict[str, dict[bytes, list[tuple[int, bytes]]]] = {}
    on_main: dict[str, Counter[bytes]] = {}  # per file, the wanted forms' copies on main
    for item in pending:
        form = normal_form(item.raw)
        elsewhere = [(path, n) for path, n in gained.get(form, ()) if path != item.path]
        if elsewhere:
            path, number = elsewhere[0]
            classified.add(
                finding(item, Classification.MOVED, other_path=path, evidence_line=number)
            )
            continue
        if item.path not in squeezed:
            result = snapshot.lines(snapshot.changed[item.path].after)
            squeezed[item.path] = _squeezed(result, wanted[item.path])
            main = snapshot.main_side(item.path)
            main_lines = snapshot.lines(main) if main is not None else []
            on_main[item.path] = Counter(
                form for form in map(_squeezed_form, main_lines) if form in wanted[item.path]
            )
        form = _squeezed_form(item.raw)
        variants = squeezed[item.path].get(form, [])
        # Byte-equal is not "reformatted": that is the file keeping fewer copies. Nor is
        # a copy main's own file already had (a common line main wrote elsewhere, in a
        # function main moved): only a copy more than main's can be dev's line laid out
        # anew.
        reformatted = next((n for n, line in variants if line != item.raw), None)
        if reformatted is not None and len(variants) > on_main[item.path][form]:
            classified.add(finding(item, Classification.REFORMATTED, evidence_line=reformatted))
        else:
            unexplained.append(item)
    return unexplained


def _squeezed_form(line: bytes) -> bytes:
    return squeeze(line).replace(b"'", b'"')


def _squeezed(result: list[bytes], wanted: set[bytes]) -> dict[bytes, list[tuple[int, bytes]]]:
    """Result lines whose whitespace-free form is wanted: ``(1-based line, line)`` per form."""
    table: dict[bytes, list[tuple[int, bytes]]] = {}
    for number, line in enumerate(result, start=1):
        key = _squeezed_form(line)
        if key in wanted:
            table.setdefault(key, []).append((number, line))
    return table


def _gained_lines(snapshot: Snapshot, wanted: set[bytes]) -> dict[bytes, list[tuple[str, int]]]:
    """For each wanted normal form, the changed files whose result holds it more often than
    their dev and slice-tip versions together: ``(path, 1-based line)``, paths sorted.

    Lines main itself put there do not count (a coincidence, or main's own
    move, which the later steps name); counting only such gains keeps a
    dropped ``import os`` from hiding behind every other file's own copy.
    """
    gained: dict[bytes, list[tuple[str, int]]] = {}
    for path in sorted(snapshot.changed):
        change = snapshot.changed[path]
        if change.after in (None, change.before, snapshot.main_side(path)):
            continue  # dev's or main's file as it was (most files): no line more often
        result = normal_forms(snapshot, change.after)
        if wanted.isdisjoint(result):  # one pass in C
            continue
        hits = [(n, form) for n, form in enumerate(result, start=1) if form in wanted]
        on_dev = Counter(normal_forms(snapshot, change.before))
        on_main = Counter(normal_forms(snapshot, snapshot.main_side(path)))
        seen: Counter[bytes] = Counter()
        for number, form in hits:
            seen[form] += 1
            # The first copy neither dev nor main had (the larger of their counts, asked
            # only for the forms hit rather than a union of the two Counters).
            if seen[form] == max(on_dev[form], on_main[form]) + 1:
                gained.setdefault(form, []).append((path, number))
    return gained


def reflowed(facts: SyncFacts, classified: Classified, items: list[PlacedLine]) -> list[PlacedLine]:
    """Rule 7: classify as *reformatted* the lines inside a statement a formatter joined or
    split (:class:`~syncdesk.services.audit.lines.Reflow`); return the rest."""

    def found(path: str, lost: list[PlacedLine]) -> dict[int, int]:
        change = facts.snapshot.changed[path]
        dev, result = facts.snapshot.lines(change.before), facts.snapshot.lines(change.after)
        return _reflowed_lines(dev, result, lost)

    return _reformatted_by_file(classified, items, found)


def _reflowed_lines(
    dev: list[bytes], result: list[bytes], lost: list[PlacedLine]
) -> dict[int, int]:
    """Lost dev lines (1-based) inside a statement a formatter reflowed -> its result line."""
    reflow = Reflow(result)
    loose_dev = loosen_all(dev)
    covered: dict[int, int] = {}
    for item in sorted(lost, key=lambda item: item.line):
        if item.line in covered:
            continue
        found = reflow.find(loose_dev, item.line - 1)
        if found is not None:
            last, number = found
            covered.update((line, number) for line in range(item.line, last + 2))
    return covered


def moved_with_its_function(facts: SyncFacts, item: PlacedLine) -> LostLine | None:
    """Rule 10: ``item`` as *moved* (naming the function and where it starts) when main
    moved the function holding it into another file (the slice brought its definition
    there), the result's file no longer defines it, and ``item`` is prose or code whose
    words the moved function still holds."""
    name = definition_name(item.raw) or facts.holder(item)
    if name is None:
        return None
    change = facts.snapshot.changed[item.path]
    if name in facts.defined_in(change.after):  # its "def" lines, without an outline
        return None
    for path, new_name in facts.moved_to(item.path, name):
        other = facts.snapshot.changed[path]
        kept = facts.bodies(other.after)[new_name]
        theirs = facts.function_words(other.after, new_name)
        brought = theirs - facts.function_words(change.before, name)
        if facts.is_prose(item) or kept_words(item.raw, theirs, brought):
            return finding(
                item, Classification.MOVED, other_path=path, evidence_line=kept[0] + 1,
                detail=f"{decode(new_name)}()",
            )  # fmt: skip
    return None
