"""The everyday commits around the scripted ones: small, plausible PRs.

Each edit touches one to three files of a branch's own pool (a module, often
its tests, sometimes a constant elsewhere): tune a default, add a helper with
its test, add a guard or a log line, add a missing test, bump a constant.
"""

from __future__ import annotations

import random

from syncdesk.services.demo.project import Namer, Project, module_name, test_module, test_path
from syncdesk.services.demo.pycode import FUNCTION_KINDS, KNOBS, Module
from syncdesk.services.demo.scenario import Changes, Edit

_WHAT = {
    "validate": "size limit",
    "stats": "stats window",
    "split": "padding cap",
    "wait": "timeout",
    "from_dict": "reported key count",
    "merge": "tally log threshold",
    "key": "bucket count",
    "cache": "cache capacity",
    "config": "default size",
}
_WHY = (
    "Measured on 8xH100: no throughput change.",
    "Found while debugging a hang in the nightly convergence run.",
    "The old value predates the switch to paged KV blocks.",
    "Matches what the 70B recipe has used for months.",
    "Reported by the inference team; a unit test covers it.",
    "Keeps memory flat at 128k context.",
    "No behaviour change for the default configs.",
    "Needed by the upcoming checkpoint format change.",
)
_TESTED = (
    "Tested: scripts/run_unit_tests.sh, plus the 8-GPU smoke run.",
    "Tested: unit tests; the nightly functional run is unchanged.",
    "Co-reviewed with the inference team.",
)
_EXPERIMENTS = (
    "fp8",
    "offload",
    "overlap",
    "comm",
    "a2a",
    "wgrad",
    "fused_blocks",
    "recompute",
    "zero_bubble",
    "pipeline",
)
_CONVENTIONAL = {
    "tune": "perf",
    "add": "feat",
    "guard": "fix",
    "log": "chore",
    "test": "test",
    "const": "perf",
}


class Editor:
    """One branch's everyday edits, over its own copy of the pool modules."""

    def __init__(self, project: Project, pool: list[str], rng: random.Random, scale: int) -> None:
        self.modules = {path: project.modules[path] for path in pool}
        self.modules |= {test_path(path): project.modules[test_path(path)] for path in pool}
        self.pool = list(pool)
        self.rng = rng
        self.namer = Namer(rng)
        self.scale = scale
        self.experiments = 0

    def edit(self, dev: bool) -> Edit:
        """The next everyday edit; dev sometimes adds an experimental module instead."""
        if dev and self.experiments < len(_EXPERIMENTS) and self.rng.random() < 0.4:
            return self._experiment()
        path = self.rng.choice(self.pool)
        op = self.rng.choice(("tune", "tune", "add", "add", "guard", "log", "test", "const"))
        op, subject, why, changes = self._apply(op, path)
        if op in ("tune", "guard") and self.rng.random() < 0.3:
            other = self.rng.choice([p for p in self.pool if p != path])
            changes |= self._apply("const", other)[3]
        package = path.split("/")[1]
        if dev:
            subject = f"[dev] {subject}"
        elif self.rng.random() < 0.35:
            subject = f"{_CONVENTIONAL[op]}({package}): {subject[0].lower()}{subject[1:]}"
        lines = [why, self.rng.choice(_WHY)]
        if self.rng.random() < 0.5:
            lines.append(self.rng.choice(_TESTED))
        return Edit(subject, "\n".join(line for line in lines if line), changes)

    def _set(self, path: str, module: Module) -> str:
        self.modules[path] = module
        return module.render()

    def _apply(self, op: str, path: str) -> tuple[str, str, str, Changes]:
        """Apply ``op`` (or "add" when it does not fit) to ``path``: (op, subject, why, changes)."""
        module, tests = self.modules[path], self.modules[test_path(path)]
        units = [i for i, unit in enumerate(module.units) if unit.kind != "raw"]
        index = self.rng.choice(units)
        unit = module.units[index]
        if op == "const" and module.constants:
            name, value = self.rng.choice(module.constants)
            new = KNOBS[(KNOBS.index(value) + 1) % len(KNOBS)] if value in KNOBS else value * 2
            return (
                op,
                f"Bump {name} to {new}",
                "",
                {path: self._set(path, module.with_constant(name, new))},
            )
        if op == "tune" or op == "const":
            step = self.rng.choice((-1, 1, 1))
            text = self._set(path, module.with_knob(index, unit.knob + step))
            verb = "Raise" if step > 0 else "Lower"
            return "tune", f"{verb} the {_WHAT[unit.kind]} of {unit.func}", "", {path: text}
        if op in ("guard", "log") and unit.kind in FUNCTION_KINDS and op not in unit.features:
            text = self._set(path, module.with_feature(index, op))
            if op == "guard":
                return (
                    op,
                    f"Reject None early in {unit.func}",
                    "A None used to fail much later.",
                    {path: text},
                )
            return op, f"Log the arguments of {unit.func}", "Debug level only.", {path: text}
        if op == "test":
            test = unit.test(module_name(path))
            if test not in tests.units:
                text = self._set(test_path(path), tests.appended(test))
                return op, f"Add a test for {unit.func}", "", {test_path(path): text}
        package = path.split("/")[1]
        new_unit = self.namer.unit(package, {unit.func for unit in module.units})
        text = self._set(path, module.appended(new_unit))
        test_text = self._set(test_path(path), tests.appended(new_unit.test(module_name(path))))
        subject = f"Add {new_unit.func} to lumen.{package}.{module_name(path)}"
        return (
            "add",
            subject,
            f"A helper for {new_unit.noun.replace('_', ' ')} handling.",
            {path: text, test_path(path): test_text},
        )

    def _experiment(self) -> Edit:
        name = _EXPERIMENTS[self.experiments]
        self.experiments += 1
        path = f"lumen/experimental/{name}.py"
        module = self.namer.module("experimental", name, self.rng.randrange(3, 6) * self.scale)
        tests = test_module(path, module)
        changes: Changes = {
            path: self._set(path, module),
            test_path(path): self._set(test_path(path), tests),
        }
        if self.experiments == 1:
            changes["lumen/experimental/__init__.py"] = (
                '"""Experimental features: dev only, no stability promise."""\n'
            )
        self.pool.append(path)
        words = name.replace("_", " ")
        body = f"Experimental {words} support, off by default. " + self.rng.choice(_WHY)
        return Edit(f"[dev] Add experimental {words} helpers", body, changes)
