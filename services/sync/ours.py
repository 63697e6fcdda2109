"""Which commits of a sync branch are *ours*: the one definition every judgment uses.

A sync branch holds the slice (main's commits), the sync merge, and what was
committed on top of it. Not all of that is ours: when dev is merged into the
sync branch after the sync merge (8 of 36 real Megatron-LM syncs), each merge
of dev brings dev's own later commits, written by dev's pull requests, whose
parents are on dev. The definition (``docs/ours.md`` says it in words):

- a commit is **ours** when it descends from the sync merge and dev's tip does
  not hold it: the repair commit(s), and the merges of dev themselves, so the
  lines a merge of dev wrote in its own resolution are ours;
- the sync merge is ours too, as its own class (its hand resolution);
- a commit a merge of dev brought in (it does not descend from the sync merge)
  is **dev's** when dev's tip holds it; one dev's tip does not hold (a merged
  feature branch, or a dev ref older than the dev that was merged) is a
  *stray*: neither ours nor dev's, and reported as such.

Everything that says "ours" asks :func:`sync_ours`: the blame origin of a
review's cited lines (:mod:`syncdesk.services.review.origin`) and so the
suggested dispositions, the coverage of the lines we wrote
(:func:`syncdesk.services.github.coverage.ours_lines`), and the anatomy the
report and the Slice screen show (``Anatomy.ours``). The preservation audit
judges :attr:`Ours.judged` against :attr:`Ours.dev` (:func:`audit_scope`).
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.audit.model import AuditScope
from syncdesk.services.git.runner import Git


@dataclass(frozen=True, slots=True)
class Ours:
    """The commits of a sync branch above its merge, sorted by the one definition.

    Every tuple is oldest first (parents before children).
    """

    merge: str  # the sync merge
    dev: str  # the newest dev commit the head holds: the dev base when dev was never merged in
    commits: tuple[str, ...]  # ours: descend from the merge, dev's tip does not hold them
    merges: tuple[str, ...]  # those of ``commits`` that are merges (of dev, as a rule)
    from_dev: tuple[str, ...]  # brought in by a merge on top, held by dev's tip: dev's
    strays: tuple[str, ...]  # brought in by a merge on top, not held by dev's tip either
    brought: tuple[tuple[str, tuple[str, ...]], ...] = ()  # each of ``merges``: what it brought

    def brought_by(self, merge: str) -> tuple[str, ...]:
        """The commits ``merge`` (one of :attr:`merges`) brought in, oldest first."""
        return dict(self.brought).get(merge, ())

    @property
    def repairs(self) -> tuple[str, ...]:
        """Our commits that are not merges: the repair commit(s)."""
        merges = set(self.merges)
        return tuple(sha for sha in self.commits if sha not in merges)

    @property
    def judged(self) -> tuple[str, ...]:
        """Everything ours, newest first, the sync merge last (the audit's order)."""
        return (*reversed(self.commits), self.merge)

    @property
    def plain(self) -> bool:
        """Nothing but the merge and at most one repair: the definition changes nothing here."""
        return len(self.commits) <= 1 and not (self.merges or self.from_dev or self.strays)


def sync_ours(git: Git, head: str, merge: str, dev_base: str, dev_tip: str) -> Ours:
    """Sort the commits ``head`` holds above the sync ``merge`` into ours, dev's and strays.

    ``dev_base`` is the merge's first parent; ``dev_tip`` is dev's tip as the
    user named it. Three git calls whatever the history's size: the merge base
    of the head and dev's tip, and two ``rev-list`` runs (what the head adds to
    the merge, with parents; and what of that dev's tip does not hold). A
    ``merge`` the head does not hold leaves nothing ours.
    """
    found = git.run(["merge-base", head, dev_tip], check=False).text.strip()
    rows = git.lines("rev-list", "--topo-order", "--reverse", "--parents", head, f"^{merge}", "--")
    off_dev = set(git.lines("rev-list", head, f"^{merge}", f"^{dev_tip}", "--"))
    descends: set[str] = set()
    order: list[str] = []
    parents_of: dict[str, list[str]] = {}
    for row in rows:
        sha, *parents = row.split()
        order.append(sha)
        parents_of[sha] = parents
        if any(parent == merge or parent in descends for parent in parents):
            descends.add(sha)
    commits = tuple(sha for sha in order if sha in descends and sha in off_dev)
    brought = [sha for sha in order if sha not in descends]
    from_dev = tuple(sha for sha in brought if sha not in off_dev)
    # The newest dev commit the head holds, when a merge of dev brought it (the
    # audit's rule too: it must be newer than what the sync merge holds).
    dev = found if found in from_dev else dev_base
    merges = tuple(sha for sha in commits if len(parents_of[sha]) > 1)
    return Ours(
        merge=merge,
        dev=dev,
        commits=commits,
        merges=merges,
        from_dev=from_dev,
        strays=tuple(sha for sha in brought if sha in off_dev),
        brought=tuple((sha, _brought(sha, parents_of, brought)) for sha in merges),
    )


def _brought(merge: str, parents_of: dict[str, list[str]], brought: list[str]) -> tuple[str, ...]:
    """What ``merge``'s other parents hold that its first parent does not, among ``brought``."""
    first, *others = parents_of[merge]
    already = _ancestors([first], parents_of)
    new = _ancestors(others, parents_of) - already
    return tuple(sha for sha in brought if sha in new)


def _ancestors(starts: list[str], parents_of: dict[str, list[str]]) -> set[str]:
    """``starts`` and their ancestors, within the commits ``parents_of`` knows."""
    seen: set[str] = set()
    todo = [sha for sha in starts if sha in parents_of]
    while todo:
        sha = todo.pop()
        if sha not in seen:
            seen.add(sha)
            todo.extend(parent for parent in parents_of[sha] if parent in parents_of)
    return seen


def ours_summary(ours: Ours | None) -> str | None:
    """:func:`ours_words`, where it says more than the merge and at most one repair (else None).

    What a report or a screen shows beside the anatomy: the commits counted as
    ours when dev was merged in on top, or several commits sit there.
    """
    return None if ours is None or ours.plain else ours_words(ours)


def ours_words(ours: Ours) -> str:
    """Which commits were counted as ours, in one line, for a report or a screen.

    For example ``merge d7110bd3 + 6 on top: repairs e2bb47c5 0c08e1f0 b795f8c2,
    merges of dev 66191ac0 a921dff3 cc2a48b1; 6 commits those merges brought are dev's``.
    """
    parts = []
    if ours.repairs:
        parts.append(_named("repair", "repairs", ours.repairs))
    if ours.merges:
        parts.append(_named("merge of dev", "merges of dev", ours.merges))
    line = f"merge {ours.merge[:8]}"
    if ours.commits:
        line += f" + {len(ours.commits)} on top: " + ", ".join(parts)
    else:
        line += ", nothing on top"
    if ours.from_dev:
        line += f"; {_count(len(ours.from_dev), 'commit')} those merges brought are dev's"
    if ours.strays:
        line += (
            f"; {_count(len(ours.strays), 'commit')} they brought are on neither side "
            f"({_shas(ours.strays)})"
        )
    return line


def _named(one: str, many: str, shas: tuple[str, ...]) -> str:
    return f"{one if len(shas) == 1 else many} {_shas(shas)}"


def _shas(shas: tuple[str, ...], most: int = 6) -> str:
    shown = " ".join(sha[:8] for sha in shas[:most])
    return shown + (f" and {len(shas) - most} more" if len(shas) > most else "")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def audit_scope(ours: Ours) -> AuditScope:
    """What the preservation audit judges: the merge and ours, against the newest dev
    commit the head holds (a line dev itself changed later is not one the sync lost)."""
    return AuditScope(ours.dev, ours.judged)
