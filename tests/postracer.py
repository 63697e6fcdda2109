"""A syncdesk process that posts on command, for the exactly-once race test.

    python -m tests.postracer REPO BASE_URL NUMBER

It prints ``ready`` once its client is built, then for each line ``KEY`` it
reads, posts the comment keyed ``KEY`` on pull request NUMBER through the same
client syncdesk's screens use (its posts locked in REPO's git directory) and
prints ``posted`` or ``found``. The test starts two of these and sends both the
same key at the same moment.
"""

from __future__ import annotations

import sys
from pathlib import Path

from syncdesk.services.git.runner import Git
from syncdesk.services.github.api import GitHubTarget
from syncdesk.services.github.link import GitHubLink, posting_client
from syncdesk.services.github.token import Token


def main() -> None:
    repo, base_url, number = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    target = GitHubTarget(base_url, "https://github.com", "lumen-ai", "lumen")
    client = posting_client(GitHubLink(target, Token("demo", "the race test")), Git(repo))
    client.viewer()  # read once now, so both racers start from the same place
    print("ready", flush=True)
    for line in sys.stdin:
        result = client.post_comment(number, "the DCO override request", line.strip())
        print("found" if result.already_posted else "posted", flush=True)


if __name__ == "__main__":
    main()
