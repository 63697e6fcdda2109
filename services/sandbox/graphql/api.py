"""GraphQL on the sandbox: GitHub's own SDL subset, a small Query root, resolvers over the store.

The schema (GitHub's definitions, our Query root and stubs, and the
graphql-core workarounds) is built in :mod:`graphql_schema`; the resolvers
are in :mod:`graphql_resolvers`. Here a query runs against both.
"""

from __future__ import annotations

from typing import Any

from graphql import graphql_sync

from syncdesk.services.sandbox.graphql.resolvers import Root
from syncdesk.services.sandbox.graphql.schema import schema
from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.store import Store

JSON = dict[str, Any]


def execute(store: Store, urls: payload.Urls, query: str, variables: JSON | None) -> JSON:
    """Run a query; like GitHub, errors come back in the body (HTTP 200) as ``errors``."""
    root = Root(store, urls)
    with store.lock:
        result = graphql_sync(schema(), query, root_value=root.value(), variable_values=variables)
    body: JSON = {"data": result.data}
    if result.errors:
        body["errors"] = [
            {"message": e.message, "locations": [loc._asdict() for loc in e.locations or []]}
            | ({"path": list(e.path)} if e.path else {})
            for e in result.errors
        ]
    return body
