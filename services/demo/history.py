"""Who committed what, when: the commit plans of every branch.

Dates are fixed (an epoch plus seeded jitter), identities are fixed, and every
random choice comes from one seeded ``random.Random``: the same spec gives the
same commits, hence the same SHAs, on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from syncdesk.services.demo import files
from syncdesk.services.demo.everyday import Editor
from syncdesk.services.demo.facts import WorldSpec
from syncdesk.services.demo.objects import Signature
from syncdesk.services.demo.project import Project
from syncdesk.services.demo.scenario import Changes, Edit, Script

BASE_TIME = 1_733_011_200  # 2024-12-01 00:00 UTC
HOUR = 3600
PRE_FORK_DAYS = 6


@dataclass(frozen=True, slots=True)
class Identity:
    """A commit identity and the time zone its clock shows."""

    name: str
    email: str
    tz: str

    def at(self, time: int) -> Signature:
        """This person's signature at ``time``."""
        return Signature(self.name, self.email, time, self.tz)

    @property
    def signoff(self) -> str:
        """The trailer that certifies this person's DCO."""
        return f"Signed-off-by: {self.name} <{self.email}>"


MAINTAINER = Identity("Mara Lindqvist", "mara.lindqvist@lumen-ai.dev", "+0100")
BOT = Identity(
    "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com", "+0000"
)
MAIN_AUTHORS = (
    Identity("Kenji Watanabe", "kwatanabe@lumen-ai.dev", "+0900"),
    Identity("Hannah Becker", "hbecker@lumen-ai.dev", "+0100"),
    Identity("Olusegun Adeyemi", "oadeyemi@lumen-ai.dev", "+0100"),
    Identity("Sofía Marchetti", "smarchetti@lumen-ai.dev", "-0300"),
    Identity("Priya Raman", "priya.raman@lumen-ai.dev", "+0530"),
    Identity("Daniel Okafor", "dokafor@lumen-ai.dev", "-0500"),
)
DEV_AUTHORS = (
    Identity("Wei Zhang", "wzhang@lumen-ai.dev", "+0800"),
    Identity("Lucas Moreau", "lmoreau@lumen-ai.dev", "+0100"),
    Identity("Hannah Becker", "hbecker@lumen-ai.dev", "+0100"),
)
# The same person committing from the GitHub web UI: a noreply author address,
# while the sign-off she types carries her corporate one (the DCO app says no).
NOREPLY_PRIYA = Identity("Priya Raman", "49203121+praman@users.noreply.github.com", "+0530")


_SQUASHED = (
    "* address review comments",
    "* fix lint",
    "* add a unit test",
    "* rebase on main",
    "* update the docstring",
    "* drop the debug print",
    "* handle the empty case",
)


@dataclass(frozen=True, slots=True)
class CommitPlan:
    """A commit to write: identities with dates, message, file changes, signature."""

    author: Signature
    committer: Signature
    message: str
    changes: Changes
    signed: bool = False


@dataclass
class History:
    """Every planned commit, by branch, oldest first."""

    prefork: list[CommitPlan] = field(default_factory=list)
    main: list[CommitPlan] = field(default_factory=list)  # after the fork: dev_base..main
    dev: list[CommitPlan] = field(default_factory=list)  # fork..dev base
    advance: list[CommitPlan] = field(default_factory=list)  # dev base..dev tip
    merge_time: int = 0


@dataclass(frozen=True, slots=True)
class Positions:
    """Where the special main commits sit, as indexes after the fork point."""

    bots: frozenset[int]
    signed: frozenset[int]
    mismatch: int
    no_pr: frozenset[int]

    @classmethod
    def for_spec(cls, spec: WorldSpec) -> Positions:
        """Three bots inside the slice (two signed), one after it; one odd sign-off."""
        size, rest = spec.slice_size, spec.main_commits - spec.slice_size
        in_slice = {size // 12, size // 2, size - 3}
        bots = in_slice | ({size + rest // 2} if rest >= 2 else set())
        no_pr = {size // 4 + 1, (3 * size) // 4 + 1} - bots
        return cls(frozenset(bots), frozenset({size // 12, size - 3}), size // 3, frozenset(no_pr))


def _message(subject: str, body: str, trailers: tuple[str, ...], pr: int | None) -> str:
    title = f"{subject} (#{pr})" if pr is not None else subject
    parts = [title, *(part for part in (body,) if part)]
    if trailers:
        parts.append("\n".join(trailers))
    return "\n\n".join(parts) + "\n"


def _spread(count: int, slots: list[int]) -> dict[int, list[int]]:
    """Spread ``count`` scripted edits evenly over ``slots`` (several per slot if need be)."""
    placed: dict[int, list[int]] = {}
    for number in range(count):
        slot = slots[(2 * number + 1) * len(slots) // (2 * count)]
        placed.setdefault(slot, []).append(number)
    return placed


def _combine(edits: list[Edit]) -> Edit:
    changes: Changes = {}
    for edit in edits:
        changes |= edit.changes
    body = "\n\n".join(edit.body for edit in edits if edit.body)
    extra = "".join(f"\n\n* {edit.subject}" for edit in edits[1:])
    return Edit(edits[0].subject, body + extra, changes)


class Planner:
    """Turns the scenario and the everyday editors into dated commit plans."""

    def __init__(self, project: Project, story: Script, spec: WorldSpec) -> None:
        self.project, self.story, self.spec = project, story, spec
        self.rng = random.Random(20241201 + spec.scale)
        self.main_editor = Editor(project, project.main_pool, self.rng, spec.scale)
        self.dev_editor = Editor(project, project.dev_pool, self.rng, spec.scale)
        self.oncall_rotation = 0
        self.bots = 0
        self.prs: set[int] = set()
        self.trusted = ["kwatanabe", "hbecker"]

    def plan(self) -> History:
        """The whole history."""
        history = History(prefork=self._prefork())
        fork_time = BASE_TIME + PRE_FORK_DAYS * 24 * HOUR
        history.main = self._main(fork_time)
        slice_tip_time = history.main[self.spec.slice_size - 1].committer.time
        history.dev = self._dev(fork_time, slice_tip_time)
        history.merge_time = slice_tip_time + 2 * HOUR
        history.advance = [
            self._human(
                self.dev_editor.edit(dev=True), history.merge_time + (8 + 7 * k) * HOUR, DEV_AUTHORS
            )
            for k in range(self.spec.dev_advance)
        ]
        return history

    def _prefork(self) -> list[CommitPlan]:
        groups: dict[str, Changes] = {
            "Initial import of lumen core and packaging": {},
            "Add the data and model packages": {},
            "Add the inference engine and the training loop": {},
            "Add CI, the CI image, CODEOWNERS and the lock file": {},
        }
        names = list(groups)
        for path, text in sorted(self.project.files().items()):
            if path.startswith(
                ("lumen/data", "lumen/models", "tests/unit/data", "tests/unit/models")
            ):
                groups[names[1]][path] = text
            elif path.startswith(("lumen/inference", "lumen/training", "tests/unit/")):
                groups[names[2]][path] = text
            elif path.startswith((".github", "docker", "scripts", "uv.lock", "docs", "tests")):
                groups[names[3]][path] = text
            else:
                groups[names[0]][path] = text
        return [
            self._human(
                Edit(subject, "First cut, imported from the research repository.", changes),
                BASE_TIME + day * 24 * HOUR,
                (MAINTAINER,),
            )
            for day, (subject, changes) in enumerate(groups.items(), start=2)
        ]

    def _main(self, fork_time: int) -> list[CommitPlan]:
        spec, where = self.spec, Positions.for_spec(self.spec)
        free = [i for i in range(spec.slice_size) if i not in where.bots]
        scripted = _spread(len(self.story.main), free)
        plans = []
        for index in range(spec.main_commits):
            time = fork_time + (index + 1) * 6 * HOUR + self.rng.randrange(3 * HOUR)
            if index in where.bots:
                plans.append(self._bot(time, signed=index in where.signed))
                continue
            if index in scripted:
                edit = _combine([self.story.main[n] for n in scripted[index]])
            else:
                edit = self.main_editor.edit(dev=False)
            author = NOREPLY_PRIYA if index == where.mismatch else None
            plans.append(
                self._human(edit, time, MAIN_AUTHORS, author=author, pr=index not in where.no_pr)
            )
        return plans

    def _dev(self, fork_time: int, until: int) -> list[CommitPlan]:
        count = self.spec.dev_commits
        scripted = _spread(len(self.story.dev), list(range(count)))
        plans = []
        for index in range(count):
            time = (
                fork_time
                + (index + 1) * (until - fork_time) // (count + 1)
                + self.rng.randrange(HOUR)
            )
            if index in scripted:
                edit = _combine([self.story.dev[n] for n in scripted[index]])
            else:
                edit = self.dev_editor.edit(dev=True)
            plans.append(self._human(edit, time, DEV_AUTHORS))
        return plans

    def _human(
        self,
        edit: Edit,
        time: int,
        people: tuple[Identity, ...],
        *,
        author: Identity | None = None,
        pr: bool = True,
    ) -> CommitPlan:
        person = author or self.rng.choice(people)
        opened = time - self.rng.randrange(2 * HOUR, 72 * HOUR)
        # The noreply author signs off with her corporate address, as people do.
        signer = MAIN_AUTHORS[4] if person is NOREPLY_PRIYA else person
        body = edit.body
        if pr and self.rng.random() < 0.35:
            # A squash merge lists the pull request's own commits.
            squashed = self.rng.sample(_SQUASHED, self.rng.randrange(2, 4))
            body = "\n\n".join(part for part in (body, "\n".join(squashed)) if part)
        message = _message(
            edit.subject, body, (signer.signoff,), self._pr_number(opened) if pr else None
        )
        return CommitPlan(person.at(opened), person.at(time), message, edit.changes)

    def _pr_number(self, opened: int) -> int:
        # Pull requests are numbered in the order they were opened (main's and
        # dev's share one sequence); two opened in the same quarter hour differ.
        number = 3800 + (opened - BASE_TIME) // 900
        while number in self.prs:
            number += 1
        self.prs.add(number)
        return number

    def _bot(self, time: int, *, signed: bool) -> CommitPlan:
        # Bots push straight to main: no pull request, and no Signed-off-by.
        self.bots += 1
        if self.bots % 3 != 2:  # two on-call rotations for every trusted-users update
            self.oncall_rotation += 1
            week = self.oncall_rotation
            changes: Changes = {files.ONCALL: files.oncall_schedule(week)}
            message = _message(
                "chore: rotate oncall schedule",
                f"Rotates the lumen-core on-call to week {week + 1}.",
                (),
                None,
            )
        else:
            self.trusted.append(("oadeyemi", "wzhang", "lmoreau")[len(self.trusted) % 3])
            changes = {files.COPY_PR_BOT: files.copy_pr_bot(tuple(self.trusted))}
            message = _message(
                "Update copy-pr-bot.yaml", "Automated sync of trusted users.", (), None
            )
        return CommitPlan(BOT.at(time), BOT.at(time), message, changes, signed=signed)


def merge_message(
    slice_size: int, first: str, slice_tip: str, dev_base: str, conflicts: list[str]
) -> str:
    """The sync merge's message: what it merges, the conflicts, a sign-off."""
    listed = "".join(f"\t{path}\n" for path in conflicts)
    return (
        f"Merge main into dev: the oldest {slice_size} commits of dev..main\n\n"
        f"Merges {first[:8]}..{slice_tip[:8]} onto dev {dev_base[:8]}.\n\n"
        f"Conflicts resolved by hand:\n{listed}\n{MAINTAINER.signoff}\n"
    )


def repair_message(branch: str, edit: Edit) -> str:
    """The repair commit's message."""
    return f"Repair {branch}: {edit.subject}\n\n{edit.body}\n\n{MAINTAINER.signoff}\n"
