"""What the user asked for when opening a sync, apart from the session that opens it.

Its own module so that the command line and the desk's first frame name a sync
without importing the session's machinery (git, the config, the audit's models).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SyncOptions:
    """What the user asked for on the command line (None: from config or default)."""

    repo: Path
    head: str | None = None
    dev: str | None = None
    main: str | None = None
    slice_size: int | None = None
    # Results kept by commit in the user's cache (services/cache/results.py); off: computed.
    results_cache: bool = True
