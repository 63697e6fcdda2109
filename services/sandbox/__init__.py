"""A GitHub-compatible server on 127.0.0.1 for the offline demo and the tests.

``Sandbox(scenario)`` serves GitHub's REST API (both the github.com and the
``/api/v3`` base URL shapes), GraphQL (executed against GitHub's own SDL) and
Codecov's API v2 from one stateful store, and records every write. syncdesk
reaches it exactly as it reaches github.com; only the base URL differs.
``demo_scenario(facts)`` builds the demo world's sync pull request, and
``connect`` says how syncdesk in another terminal reaches a running sandbox.
"""
