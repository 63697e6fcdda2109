"""Who and where the demo's GitHub side is: the repository, its people, its pull requests."""

from __future__ import annotations

OWNER, NAME = "lumen-ai", "lumen"
PR_NUMBER = 4242
MERGED_SYNC_PRS = (4101, 3990)
MAINTAINER = "mara-lindqvist"  # the viewer: owns the sync branch, wrote merge and repair
REVIEW_BOT = "lumen-review-bot"
CI_BOT = "lumen-ci-bot"
REVIEWER = "priya-raman"
