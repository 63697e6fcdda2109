"""What the configuration says about files, for the audit."""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.patterns import listed


@dataclass(frozen=True, slots=True)
class AuditPolicy:
    """What the configuration says about files, for the audit (see ``docs/configuration.md``)."""

    keep_dev: tuple[str, ...] = ()
    override_from_main: tuple[str, ...] = ()
    data_files: tuple[str, ...] = ()

    def policy(self, path: str) -> str | None:
        """``keep-dev`` or ``override-from-main`` when a policy covers ``path``."""
        if listed(path, self.keep_dev):
            return "keep-dev"
        if listed(path, self.override_from_main):
            return "override-from-main"
        return None
