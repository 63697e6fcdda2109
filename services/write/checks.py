"""What the repair preview checks in the files a write would change, before anything moves.

Three things a maintainer can miss in a diff, each found from the new tree:

- a **keep-dev** file (``.github/CODEOWNERS``, the dependency triple) that
  would no longer be dev's: the policy says it stays byte-identical to the dev
  base, and taking main's version for it is almost always a slip;
- a **Python file that does not compile**: each changed ``.py`` file is passed
  to :func:`compile` (parsed to bytecode in memory; nothing is imported or
  run). A syntax error *blocks* the write until the maintainer confirms it;
- **adjacent duplicate definitions**: two ``def`` headers of one name, one
  right after the other at the same indentation (a restore that put dev's
  version of a function back beside main's). Python accepts the second and
  drops the first without a word. ``@overload`` stubs, property setters and
  ``.register`` variants are the legitimate cases and are not flagged.

Only the files this write changes are checked (the old head against the new
tree): what earlier writes changed was previewed then.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator, Sequence

from syncdesk.services.audit.statements import is_python
from syncdesk.services.git.objects import read_contents
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import changed_paths, entries_at, tree_of
from syncdesk.services.patterns import listed
from syncdesk.services.sanitize import one_line
from syncdesk.services.write.models import PreviewCheck, RepairPlan

COMPILE_LIMIT = 8 * 1024 * 1024  # bytes: a larger "Python" file is data, not checked
_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)[ \t]*\(")
_BLOCK = re.compile(r"^(?P<indent>[ \t]*)(?:class|(?:async[ \t]+)?def)\b")
# Decorators that make a repeated name legitimate: typing's overload stubs,
# a property's setter/getter/deleter, functools.singledispatch's register.
_SANCTIONED = re.compile(r"^[ \t]*@[\w.]*(?:overload|\.setter|\.getter|\.deleter|\.register)\b")


def preview_checks(git: Git, plan: RepairPlan, keep_dev: Sequence[str]) -> tuple[PreviewCheck, ...]:
    """Every check of the files ``plan`` changes against the head it was read from."""
    changed = changed_paths(git, tree_of(git, plan.old_head), plan.new_tree)
    checks = list(_keep_dev(git, plan, [p for p in changed if listed(p, keep_dev)]))
    python = {
        path: new.oid
        for path, (_, new) in changed.items()
        if new is not None and is_python(path) and new.mode != "120000"
    }
    blobs = read_contents(git, set(python.values()), "blob", limit=git.large_file_limit)
    for path, oid in sorted(python.items()):
        source = blobs.get(oid)
        if source is not None and len(source) <= COMPILE_LIMIT:
            checks.extend(python_checks(path, source))
    return tuple(checks)


def python_checks(path: str, source: bytes) -> list[PreviewCheck]:
    """The syntax error (if any) and the adjacent duplicate definitions of one Python file."""
    found: list[PreviewCheck] = []
    error = syntax_error(source)
    if error is not None:
        line, why = error
        where = f"{one_line(path)}:{line}" if line else one_line(path)
        found.append(
            PreviewCheck(
                "syntax",
                path,
                line,
                f"{where}: {why} (does not compile with Python "
                f"{sys.version_info.major}.{sys.version_info.minor})",
                blocking=True,
            )
        )
    text = source.decode("utf-8", "replace")
    for name, first, second in adjacent_duplicates(text.split("\n")):
        found.append(
            PreviewCheck(
                "duplicate-def",
                path,
                second,
                f"{one_line(path)}:{second}: def {one_line(name)} again, right after the one "
                f"at line {first}: the second replaces the first",
            )
        )
    return found


def syntax_error(source: bytes) -> tuple[int | None, str] | None:
    """``(line, message)`` if ``source`` does not compile, else None. Nothing is executed.

    :func:`compile` only parses and generates bytecode; the code object is
    dropped. Bytes are given so a coding cookie or a BOM is honoured as Python
    would. Its own warnings (an invalid escape) are not errors and are hushed.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<repair>", "exec", dont_inherit=True)
    except SyntaxError as error:  # IndentationError and TabError are SyntaxErrors
        return error.lineno, one_line(error.msg or "invalid syntax")
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, absurd nesting
        return None, one_line(str(error) or type(error).__name__)
    return None


def adjacent_duplicates(lines: Sequence[str]) -> Iterator[tuple[str, int, int]]:
    """``(name, first line, second line)`` for each ``def`` header repeated right after itself.

    "Right after" means the next ``def`` or ``class`` header at the same or a
    shallower indentation is a ``def`` of the same name at the same indentation
    (lines are 1-based).
    """
    previous: tuple[str, str, int, bool] | None = None  # indent, name, line, sanctioned
    for number, line in enumerate(lines, start=1):
        block = _BLOCK.match(line)
        if block is None:
            continue
        indent = block["indent"]
        header = _DEF.match(line)
        sanctioned = number > 1 and _SANCTIONED.match(lines[number - 2]) is not None
        if previous is not None and len(indent) <= len(previous[0]):
            same = header is not None and header["name"] == previous[1] and indent == previous[0]
            if same and not (sanctioned or previous[3]):
                yield previous[1], previous[2], number
        if previous is None or len(indent) <= len(previous[0]):
            previous = None if header is None else (indent, header["name"], number, sanctioned)


def _keep_dev(git: Git, plan: RepairPlan, paths: Sequence[str]) -> Iterator[PreviewCheck]:
    if not paths:
        return
    dev_base = git.text("rev-parse", "--verify", "--end-of-options", f"{plan.merge}^1").strip()
    at_dev = entries_at(git, dev_base, paths)
    at_new = entries_at(git, plan.new_tree, paths)
    for path in sorted(paths):
        if at_new[path] == at_dev[path]:
            continue  # the write puts dev's version back, or keeps it
        what = "deletes it" if at_new[path] is None else "makes it differ from dev's"
        yield PreviewCheck(
            "keep-dev",
            path,
            None,
            f"{one_line(path)} is a keep-dev file (it stays as dev has it): this write {what} "
            f"(dev base {dev_base[:12]})",
        )
