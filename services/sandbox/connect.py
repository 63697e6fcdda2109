"""How syncdesk, run from another terminal, reaches a running sandbox.

``syncdesk sandbox`` prints these lines: the user-config TOML that points
syncdesk at the sandbox (the repository, the API, the web and Codecov URLs) and
the token variable syncdesk reads for the sandbox's host. Nothing else differs
from github.com, so ``syncdesk`` and ``syncdesk report --with-pr`` run against
it unchanged. The token is the sandbox's own test token, never a real one.
"""

from __future__ import annotations

import json

from syncdesk.services.github.token import token_variables
from syncdesk.services.sandbox.scenario import Scenario
from syncdesk.services.sandbox.server import Sandbox

# What the demo sends as its token; a scenario with no token list accepts any.
TEST_TOKEN = "demo"


def sandbox_token(scenario: Scenario) -> str:
    """A token ``scenario``'s sandbox accepts: its first valid one, else :data:`TEST_TOKEN`."""
    return scenario.valid_tokens[0] if scenario.valid_tokens else TEST_TOKEN


def user_config_lines(sandbox: Sandbox) -> list[str]:
    """The user file's settings (``key = "value"``, TOML) that send syncdesk to ``sandbox``.

    These are user-file keys (a repository's ``.syncdesk.toml`` may not say
    where a token goes), so they belong in ``user_config_path()``.
    """
    scenario = sandbox.scenario
    settings = {
        "github_repo": scenario.full_name,
        "github_api_url": sandbox.base_url,
        "github_web_url": scenario.web_url,
        "codecov_api_url": sandbox.codecov_url,
    }
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return [f"{key} = {json.dumps(value)}" for key, value in settings.items()]


def token_line(sandbox: Sandbox) -> str:
    """``NAME=token``: the variable syncdesk reads for the sandbox's host, set to its test token.

    The host is 127.0.0.1, not github.com, so it is ``GH_ENTERPRISE_TOKEN``
    (as for any Enterprise host): a maintainer's ``GH_TOKEN`` is never sent to it.
    """
    return f"{token_variables(sandbox.base_url)[0]}={sandbox_token(sandbox.scenario)}"
