"""The configured conflict policies: files kept from dev, files taken from main.

DOMAIN.md: ``.github/CODEOWNERS`` and the dependency triple stay byte-identical
to dev; a short list of files takes main's version wholesale. A policy
resolves a file by default; any decision of the maintainer overrides it.
"""

from __future__ import annotations

from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.patterns import listed
from syncdesk.services.sync.config import Config

KEEP_DEV = "keep-dev"
OVERRIDE_FROM_MAIN = "override-from-main"


def policy_for(path: str, config: Config) -> str | None:
    """The configured policy for ``path``: keep dev's file, take main's, or none."""
    if listed(path, config.keep_dev):
        return KEEP_DEV
    if listed(path, config.override_from_main):
        return OVERRIDE_FROM_MAIN
    return None


def audit_policy(config: Config) -> AuditPolicy:
    """What the preservation audit needs of the configuration."""
    return AuditPolicy(config.keep_dev, config.override_from_main, config.audit_data_files)
