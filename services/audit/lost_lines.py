"""The dev-feature preservation audit: dev lines the sync merge may have lost.

The reference (DOMAIN.md) is a bash pre-push hook: for every file the sync
touched it runs ``git show`` on the dev base, the slice tip and the head, and
keeps the lines that ``comm`` over the sorted outputs finds on dev, absent
from main and missing from the result. ``tests/data/preservation_hook.sh`` is
that hook, and the tests prove :func:`raw_findings` reports exactly its
findings, computed in-process from blobs read once (see
:mod:`syncdesk.services.audit.sources` for the git side, :mod:`syncdesk.services.audit.lines`
for the line logic and its exact ``sort``/``comm`` semantics). The real
Megatron-LM hook's variant (sets, code files only, skip lists) is
:mod:`syncdesk.services.audit.hook`.

*What is judged*: the sync merge and the commits on top of it that are not
dev's. When dev was merged into the sync branch afterwards, "dev" is the
newest dev commit the head holds (``services/sync/ours.audit_scope``): a line
dev itself changed later is not a line the sync lost.

The raw list is mostly noise (thousands of lines on a real Megatron-LM sync),
so :func:`audit_sync` triages it, every line into one class with its evidence,
in the order below, cheapest test first; "probable accident" is what is left
when every innocent explanation failed. The rules share one
:class:`~syncdesk.services.audit.sync_facts.SyncFacts` (every fact about the
files read once) and write into one
:class:`~syncdesk.services.audit.classified.Classified`; each is a function named
for it in the module named (``_audited`` and ``_explain_the_rest`` below run them,
numbered as here). A policy file's lines meet only rules 5, 8 and 3.

1. *ignored*, and counted: trivial lines, which hold no letter or digit, and
   the lines of binary files (a NUL in the first 8000 bytes, git's test).
2. *data files* (lock files, golden-value JSON: ``audit_data_files``): summed
   up per file, not listed line by line.
3. *by policy*: the lines of keep-dev and override-from-main files (shown,
   never hidden: the policy, not the merge, decided those files), except a
   statement the file holds rewrapped (5) and a still-referenced definition
   (8), which stays an accident there too.
4. *removed on main*: a slice commit removed that exact line from that file
   (most lost lines, and the cheapest test: asked first). ``removals``.
5. *reformatted*: the Python statement holding the line is in the result
   wrapped another way, or with only its comment changed
   (:mod:`~syncdesk.services.audit.statements`). ``moved.rewrapped``.
6. *moved*: the line, ignoring indentation, trailing whitespace and quote
   style, was put into another file of the result by the merge or the repair
   (a changed file holds it more often at the head than on dev and main
   together), which also follows files main renamed or split.
   ``moved.moved_or_reformatted``.
7. *reformatted* again: the result file holds a line equal to it ignoring all
   whitespace and quote style (tested in 6's pass, after it); a formatter
   joined or split it (:class:`~syncdesk.services.audit.lines.Reflow`,
   ``moved.reflowed``).
8. *still referenced*: the line defined a name (function, class, parameter,
   attribute, import, config key, flag) that main's code never mentions, that
   the head's code still uses (data files are not code to either test) and
   that the head's file no longer defines
   (:mod:`syncdesk.services.audit.names`): the strongest sign of an
   accident, ranked first. ``dropped.still_referenced``.
9. *removed on main* again: dev had only rewrapped a statement of the merge
   base, and main removed that statement. ``removals.removed_as_dev_wrapped_it``.
10. *moved* with its function: main moved the function holding the line into
    another file, under its name or another (the function main brought there
    holds most of its lines), and the line is prose or its words are there.
    ``moved.moved_with_its_function``.
11. *probable accident* at once: the line is in a dev function or class that
    main and the head both lack by name, and that main did not move into
    another file (dev's work dropped wholesale). ``dropped.in_a_dropped_definition``.
12. *superseded by main*: a slice commit rewrote the same code: the base
    lines dev changed, or, for a line dev inserted, main deleted the code
    around it or wrote a version of it at that place (a port, a rename, a
    reworded comment: :mod:`syncdesk.services.audit.regions`); or main
    renamed a name of the line (the result holds it with the new name, one
    main brought); or main rewrote the function holding it and the result's
    version still holds the line's words (a missing word only where main
    brought a name to stand for it), its shape with the locals renamed, or
    it is a comment or docstring (but a comment whose code is an accident is
    one too). The commit is named. Where that code is a conflict hunk the
    resolution took as main's side, the class is *taken as main*: a
    resolution decision, shown as such. Outside the hunks, a change of
    main's merely *next to* dev's line does not count: dropping a dev
    addition because main touched a neighbouring line is the classic accident.
    :mod:`~syncdesk.services.audit.superseded`.
13. *taken as main* too: a line the resolution of a conflict hunk dropped
    when main changed only code next to it, unless that hunk also dropped a
    whole dev function (then every dev line it lost is an accident). On real
    syncs these were main's re-implementations of the code (see
    :func:`~syncdesk.services.audit.resolution.resolution_decisions`); the
    workspace shows the hunk side by side.
14. *probable accident*: everything else, except a line main's own history
    before the slice held and removed (its last 300 commits: a stale copy of
    main's older code an earlier sync kept), which is *removed on main*
    (``removals.stale_copies``), and a line between two lost lines a slice
    commit removed or rewrote, which went with that change
    (``superseded.amid_mains_change``).
    Accidents are grouped into blocks of consecutive dev lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

from syncdesk.services.audit.changes import dev_changes
from syncdesk.services.audit.classified import Classified, PlacedLine, finding
from syncdesk.services.audit.dropped import (
    dropped_wholesale,
    in_a_dropped_definition,
    still_referenced,
)
from syncdesk.services.audit.evidence import Evidence, EvidenceReads
from syncdesk.services.audit.hook import hook_findings
from syncdesk.services.audit.judge import judge, lines_to_blame
from syncdesk.services.audit.lines import (
    has_spare_copies,
    is_binary,
    is_trivial,
    lost_lines,
    place_lost,
)
from syncdesk.services.audit.model import (
    Audit,
    AuditScope,
    Classification,
    DataFile,
    LargeFile,
    LostLine,
    RawFinding,
    shown_order,
)
from syncdesk.services.audit.moved import (
    moved_or_reformatted,
    moved_with_its_function,
    reflowed,
    rewrapped,
)
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.audit.removals import (
    removed_as_dev_wrapped_it,
    removed_on_main,
    stale_copies,
)
from syncdesk.services.audit.resolution import (
    HunksTakenAsMain,
    hunk_name,
    hunk_taken_as_main,
    resolution_decisions,
)
from syncdesk.services.audit.sources import (
    Region,
    Removals,
    SliceChanges,
    Snapshot,
    Touched,
    changed_regions,
    earlier_removals,
    read_snapshot,
    slice_changes,
)
from syncdesk.services.audit.superseded import (
    amid_mains_change,
    comments_follow_their_code,
    function_main_rewrote,
    renamed_by_main,
    rewritten_by_main,
    superseding_change,
)
from syncdesk.services.audit.sync_facts import SyncFacts
from syncdesk.services.collector import collector_paused
from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from syncdesk.services.patterns import listed
from syncdesk.services.progress import QUIET, Steps


def raw_findings(git: Git, dev_base: str, slice_tip: str, head: str) -> list[RawFinding]:
    """The reference hook's findings, computed in-process: touched files, then sorted lines."""
    snapshot = read_snapshot(git, dev_base, slice_tip, head)
    return [
        RawFinding(touched.path, line)
        for touched, lost in _lost_by_file(snapshot)
        for line in sorted(lost.elements())
    ]


def _lost_by_file(snapshot: Snapshot) -> list[tuple[Touched, Counter[bytes]]]:
    found = []
    for touched in snapshot.touched:
        lost = lost_lines(
            snapshot.lines(touched.dev),
            snapshot.lines(touched.main),
            snapshot.lines(touched.result),
        )
        if lost:
            found.append((touched, lost))
    return found


def audit_sync(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    steps: Steps = QUIET,
    *,
    scope: AuditScope | None = None,
    policy: AuditPolicy | None = None,
    conflicts: ConflictSet | None = None,
    hook: bool = False,
) -> Audit:
    """The triaged preservation audit of the sync of ``slice_tip`` into ``dev_base``.

    ``head`` is the result to check: the sync branch's head (merge and
    repair), or the merge commit itself. ``scope`` (``sync.ours.audit_scope``) says
    which dev version to judge against (default: the dev base). ``conflicts``
    (the merge's conflicts read at the head) lets lines lost in a hunk taken
    as main be named as that decision. ``hook`` also computes the real
    Megatron-LM hook's findings (:mod:`syncdesk.services.audit.hook`) when its
    refs are the ones judged here. ``steps`` is checked between the
    steps, so a cancel stops it (:class:`~syncdesk.services.errors.Cancelled`).
    """
    # The audit keeps what it builds (lines, statements, tables) to its end: the cycle
    # collector's walks over it would free nothing (services.collector). It resumes
    # once _audited has returned and its working state has been freed, so that its
    # first walk does not go over all of it either.
    with collector_paused():
        return _audited(
            git, dev_base, slice_tip, head, steps,
            scope=scope, policy=policy, conflicts=conflicts, hook=hook,
        )  # fmt: skip


@dataclass
class _Placed:
    """The raw findings sorted by rules 1 to 3, each line left placed on its dev line."""

    pending: list[PlacedLine] = field(default_factory=list)  # for rules 4 to 14
    by_policy: list[tuple[PlacedLine, str]] = field(default_factory=list)  # (line, policy)
    data: list[DataFile] = field(default_factory=list)
    ignored_trivial: int = 0
    ignored_binary: int = 0


def _audited(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    steps: Steps,
    *,
    scope: AuditScope | None,
    policy: AuditPolicy | None,
    conflicts: ConflictSet | None,
    hook: bool,
) -> Audit:
    """:func:`audit_sync`'s work: what git is asked, while the numbered rules run."""
    dev = scope.dev if scope is not None else dev_base
    policy = policy or AuditPolicy()
    with Ahead(workers=3) as ahead:
        patches: list[Future[SliceChanges]] = []

        def ask_for_patches(touched: Sequence[Touched]) -> None:
            # A line a slice commit removed is main's deletion, whatever else is true
            # of it. git reads the slice's patches of every file a lost line may be
            # in (a superset: which have lost lines is known only once the blobs
            # are read and compared) while the blobs are read and the lines placed.
            paths = [t.path for t in touched if not listed(t.path, policy.data_files)]
            patches.append(ahead.ask(slice_changes, git, dev_base, slice_tip, sorted(paths)))

        snapshot = read_snapshot(git, dev, slice_tip, head, touched_known=ask_for_patches)
        steps.check()
        base = ahead.ask(_merge_base, git, dev, slice_tip)
        lost_files = _lost_by_file(snapshot)
        facts = SyncFacts(
            git, snapshot, dev, dev_base, slice_tip, head, conflicts, policy.data_files
        )
        classified = Classified()
        # 1. ignored, 2. data files, and the files 3. a policy decides.
        placed = _placed(git, snapshot, dev, head, lost_files, policy, ahead)
        hooked = tuple(hook_findings(snapshot, policy)) if hook else None
        steps.check()
        # Needed next, and pure Python: computed while git may still read the patches.
        facts.main_names()
        # 4. removed on main. Most lost lines are main's deletions, and the passes after
        # this are the costly ones.
        facts.changes = patches[0].result() if patches else SliceChanges()
        unexplained = removed_on_main(facts, classified, placed.pending)
        # git looks for the uses of every name these lines define (8) while the passes
        # below explain most of them (a superset of what will be asked: one grep).
        facts.look_for_uses([*unexplained, *(item for item, _ in placed.by_policy)], ahead)
        # What main and dev changed since their merge base, and main's older removals
        # (300 commits of log -p: the longest read), asked for every file an accident may
        # yet be found in: a few more files than the passes below leave (47 for 42 on
        # 13_08), read while those passes run. The answer per file does not depend on
        # the others (--no-renames).
        paths = sorted({item.path for item in (*unexplained, *(i for i, _ in placed.by_policy))})
        merge_base = base.result()
        earlier = ahead.ask(earlier_removals, git, merge_base, paths) if merge_base else None
        regions = (
            ahead.ask(changed_regions, git, merge_base, dev, paths),
            ahead.ask(changed_regions, git, merge_base, slice_tip, paths),
        ) if merge_base and paths else None  # fmt: skip
        steps.check()
        # The verdicts' reads (blame of these files over dev's own history, the slice's
        # messages, the merge's own result) run while the passes below explain lines.
        reads = (
            EvidenceReads(
                git, ahead, merge_base=merge_base, dev=dev, slice_tip=slice_tip,
                judged=scope.judged if scope is not None else (), paths=paths,
            ) if paths else None
        )  # fmt: skip
        # 5. reformatted (rewrapped), 6. moved, 7. reformatted (whitespace, reflowed).
        unexplained = rewrapped(facts, classified, unexplained)
        unexplained = moved_or_reformatted(facts, classified, unexplained)
        steps.check()
        unexplained = reflowed(facts, classified, unexplained)
        # A policy takes the other side's file whole, and where that file holds dev's
        # statement laid out in its own style (main's compact or backslash-continued
        # lines for black's), nothing dev wrote is gone: 5, which matches whole
        # statements. Not 6 and 7, which match lines or runs of lines: in a file nobody
        # merged, ``total_tokens,`` found in another function is no sign of dev's line.
        decided = {(item.path, item.line): policy for item, policy in placed.by_policy}
        by_policy = rewrapped(facts, classified, [item for item, _ in placed.by_policy])
        steps.check()
        # 8. still referenced, else 3. by policy: the policy files' lines left.
        for item in by_policy:
            # A policy takes the file whole; a definition it dropped that the
            # result still uses is an accident all the same (a test importing it).
            referenced = still_referenced(facts, item)
            policy_named = decided[item.path, item.line]
            classified.add(
                referenced or finding(item, Classification.BY_POLICY, detail=policy_named)
            )
        steps.check()
        dev_regions, main_regions = (
            (regions[0].result(), regions[1].result()) if regions is not None else ({}, {})
        )
        # 8 to 14: the rest, line by line.
        _explain_the_rest(facts, classified, unexplained, earlier, dev_regions, main_regions)
        findings = list(classified)
        evidence = (
            reads.evidence(
                snapshot, facts.changes, dev_regions, main_regions, findings, lines_to_blame
            )
            if reads is not None
            else Evidence(snapshot, facts.changes, dev_regions, main_regions)
        )
        judged = [replace(found, judgment=judge(evidence, found)) for found in findings]
    findings = _with_blocks(snapshot, judged)
    changes = dev_changes(evidence, findings)
    findings.sort(key=shown_order)
    return Audit(
        dev_base=dev_base,
        slice_tip=slice_tip,
        head=head,
        files_checked=snapshot.files_checked,
        raw_count=sum(lost.total() for _, lost in lost_files),
        raw_files=len(lost_files),
        ignored_trivial=placed.ignored_trivial,
        ignored_binary=placed.ignored_binary,
        findings=tuple(findings),
        dev=dev,
        judged=scope.judged if scope is not None else (),
        data_files=tuple(sorted(placed.data, key=lambda d: d.path)),
        too_large=tuple(LargeFile(path, size) for path, size in sorted(snapshot.too_large.items())),
        hook=hooked,
        changes=changes,
    )


def _placed(
    git: Git,
    snapshot: Snapshot,
    dev: str,
    head: str,
    lost_files: Sequence[tuple[Touched, Counter[bytes]]],
    policy: AuditPolicy,
    ahead: Ahead,
) -> _Placed:
    """Rules 1 and 2 (ignored lines, data files), and every other raw finding placed on its
    dev line: for rule 3 when a policy decides its file, else for rules 4 to 14."""
    placed = _Placed()
    placing: list[tuple[Touched, Counter[bytes], str | None]] = []
    for touched, lost in lost_files:
        if is_binary(snapshot.blobs.get(touched.dev, b"")):
            placed.ignored_binary += lost.total()
            continue
        real = Counter({line: count for line, count in lost.items() if not is_trivial(line)})
        placed.ignored_trivial += lost.total() - real.total()
        if not real:
            continue
        if listed(touched.path, policy.data_files):
            placed.data.append(DataFile(touched.path, real.total()))
            continue
        placing.append((touched, real, policy.policy(touched.path)))
    # Where dev holds more copies of a lost line than were lost, the copies git's
    # diff of dev and the head leaves unmatched are the lost ones: one diff for
    # every such file (difflib, in Python, took 0.2 s for 26 files on 13_08).
    spare = {t.path for t, real, _ in placing if has_spare_copies(snapshot.lines(t.dev), real)}
    diffs = ahead.ask(changed_regions, git, dev, head, sorted(spare)) if spare else None
    placements: dict[str, list[tuple[int, bytes]]] = {}
    for touched, real, _ in sorted(placing, key=lambda entry: entry[0].path in spare):
        # The files that need no alignment first, while git diffs the others.
        diffed = diffs.result().get(touched.path) if touched.path in spare and diffs else None
        placements[touched.path] = place_lost(
            snapshot.lines(touched.dev), snapshot.lines(touched.result), real,
            None if diffed is None else _old_lines(diffed),
        )  # fmt: skip
    for touched, _, decided in placing:
        lines = [PlacedLine(touched.path, n, line) for n, line in placements[touched.path]]
        if decided is None:
            placed.pending += lines
        else:
            placed.by_policy += ((item, decided) for item in lines)
    return placed


def _old_lines(regions: Iterable[Region]) -> set[int]:
    """The old side's lines (0-based) a diff's ``-U0`` regions change: the unmatched ones."""
    return {at for r in regions for at in range(r.old_start - 1, r.old_start - 1 + r.old_count)}


def _merge_base(git: Git, dev: str, slice_tip: str) -> str:
    """The merge base of ``dev`` and ``slice_tip`` ("" when they share no history)."""
    return git.run(["merge-base", dev, slice_tip], check=False).text.strip()


def _explain_the_rest(
    facts: SyncFacts,
    classified: Classified,
    items: list[PlacedLine],
    earlier: Future[Removals] | None,
    dev_regions: dict[str, list[Region]],
    main_regions: dict[str, list[Region]],
) -> None:
    """Rules 8 to 14 for the lines 4 to 7 left: each line by the first rule that explains
    it, then the passes over what they decided.

    ``earlier`` is being read: main's removals before the merge base of the judged
    dev and the slice tip (None: they share no history); the regions are what each
    side changed since that merge base, for the items' files.
    """
    if not items:
        return
    shared = earlier is not None  # dev and the slice tip have a merge base
    first = len(classified)
    comments: list[LostLine] = []  # comment lines excused by their function's rewrite
    hunks = HunksTakenAsMain()
    for item in items:
        mains = main_regions.get(item.path, ())
        found = (
            still_referenced(facts, item)  # 8.
            or removed_as_dev_wrapped_it(facts, item, mains)  # 9.
            or moved_with_its_function(facts, item)  # 10.
        )
        if found is not None:
            classified.add(found)
            continue
        hunk = hunk_taken_as_main(facts, item)
        in_hunk = None if hunk is None else hunk_name(hunk)
        # 11. probable accident at once: dev's function or class dropped wholesale.
        dropped = in_a_dropped_definition(facts, item)
        if dropped is not None:
            classified.add(dropped_wholesale(item, dropped))
            if hunk is not None:
                hunks.dropped_definition(hunk, dropped)
            continue
        # 12. superseded by main (taken as main inside that hunk).
        region = superseding_change(facts, item, dev_regions, main_regions) if shared else None
        if region is None and (renamed := renamed_by_main(facts, item)) is not None:
            classified.add(renamed)
            continue
        function = None
        if region is None:
            rewrite = function_main_rewrote(facts, item, mains)
            if rewrite is not None:
                function, region = rewrite
        if region is not None:
            found = classified.add(rewritten_by_main(facts, item, region, in_hunk, function))
            if function is not None and item.raw.lstrip().startswith(b"#"):
                comments.append(found)
            continue
        # 14. main did not rewrite this code. Outside the hunks, dropping it is the
        # classic accident; inside a hunk taken as main, it is the resolution's
        # decision unless that hunk dropped a whole dev definition (13, below).
        found = classified.add(finding(item, Classification.ACCIDENT, detail=in_hunk))
        if hunk is not None:
            hunks.dropped_beside(found, hunk)
    comments_follow_their_code(facts, classified, comments)  # 12.
    resolution_decisions(facts, classified, hunks)  # 13.
    if earlier is not None:
        stale_copies(classified, earlier.result(), first)  # 14.
    amid_mains_change(facts, classified, first)  # 14.


def _with_blocks(snapshot: Snapshot, findings: Iterable[LostLine]) -> list[LostLine]:
    """The findings, each accident marked with the first dev line of its block."""
    out: list[LostLine] = []
    accidents: dict[str, list[LostLine]] = {}
    for found in findings:
        if found.is_accident:
            accidents.setdefault(found.path, []).append(found)
        else:
            out.append(found)
    for path, items in accidents.items():
        dev = snapshot.lines(snapshot.changed[path].before)
        items.sort(key=lambda f: f.line)
        start = items[0].line
        previous = start
        for found in items:
            if not _only_trivial_between(dev, previous, found.line):
                start = found.line
            previous = found.line
            out.append(replace(found, block=start))
    return out


def _only_trivial_between(dev: Sequence[bytes], first: int, last: int) -> bool:
    """Whether every dev line strictly between lines ``first`` and ``last`` (1-based) is trivial."""
    return all(is_trivial(line) for line in dev[first : last - 1])
