"""The sandbox's GraphQL schema: GitHub's own SDL subset, a Query root, stubs for the rest.

``data/github_graphql_subset.graphql`` holds GitHub's real definitions of the
types syncdesk queries (StatusCheckRollup, CheckRun, StatusContext, Commit,
PullRequest, PullRequestReviewThread...) but no ``Query`` and none of the
types they merely mention. We add a Query root and the few types a query
reaches (``Actor``, ``User``, the review-thread connections...) in
:data:`EXTRA_SDL`, and declare every other missing name as an opaque scalar
(or an empty interface when it is implemented), so a query the real API
would refuse for a typo is refused here too.

Two workarounds are needed with graphql-core 3.3 (see github_testing.md §5):
``assume_valid_sdl=True`` (GitHub's SDL has quirks such as duplicate argument
definitions) and clearing ``schema._validation_errors`` (deprecated
implementations of non-deprecated interface fields are rejected otherwise).
"""

from __future__ import annotations

import functools
from importlib import resources

from graphql import GraphQLSchema, build_schema, parse, validate
from graphql.error import GraphQLError
from graphql.language import DocumentNode, NamedTypeNode, visit
from graphql.language.visitor import Visitor

EXTRA_SDL = """
type Query {
  repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
  viewer: User!
}
interface Node { id: ID! }
interface Actor {
  avatarUrl(size: Int): URI!
  login: String!
  resourcePath: URI!
  url: URI!
}
type User implements Node & Actor {
  id: ID!
  databaseId: Int
  login: String!
  name: String
  email: String!
  avatarUrl(size: Int): URI!
  resourcePath: URI!
  url: URI!
}
type Bot implements Node & Actor {
  id: ID!
  databaseId: Int
  login: String!
  avatarUrl(size: Int): URI!
  resourcePath: URI!
  url: URI!
}
type GitActor {
  avatarUrl(size: Int): URI!
  date: GitTimestamp
  email: String
  name: String
  user: User
}
type PullRequestReview implements Node {
  id: ID!
  databaseId: Int
  author: Actor
  body: String!
  state: PullRequestReviewState!
  submittedAt: DateTime
}
type PullRequestReviewThreadConnection {
  edges: [PullRequestReviewThreadEdge]
  nodes: [PullRequestReviewThread]
  pageInfo: PageInfo!
  totalCount: Int!
}
type PullRequestReviewThreadEdge { cursor: String!  node: PullRequestReviewThread }
type PullRequestReviewCommentConnection {
  edges: [PullRequestReviewCommentEdge]
  nodes: [PullRequestReviewComment]
  pageInfo: PageInfo!
  totalCount: Int!
}
type PullRequestReviewCommentEdge { cursor: String!  node: PullRequestReviewComment }
type WorkflowRun { id: ID!  databaseId: Int  workflow: Workflow! }
type Workflow { id: ID!  name: String! }
enum PullRequestReviewThreadSubjectType { FILE LINE }
enum PullRequestReviewCommentState { PENDING SUBMITTED }
enum PullRequestState { CLOSED MERGED OPEN }
enum CommentAuthorAssociation {
  COLLABORATOR CONTRIBUTOR FIRST_TIMER FIRST_TIME_CONTRIBUTOR MANNEQUIN MEMBER NONE OWNER
}
"""

_BUILTIN = {"String", "Int", "Float", "Boolean", "ID"}


def _stubs(documents: list[DocumentNode]) -> str:
    """SDL for every type the documents mention but nobody defines."""
    defined: set[str] = set()
    implemented: set[str] = set()
    mentioned: set[str] = set()
    for document in documents:
        for definition in document.definitions:
            name = getattr(definition, "name", None)
            if name is not None:
                defined.add(name.value)
            for interface in getattr(definition, "interfaces", None) or ():
                implemented.add(interface.name.value)

    class Names(Visitor):
        def enter_named_type(self, node: NamedTypeNode, *_: object) -> None:
            mentioned.add(node.name.value)

    for document in documents:
        visit(document, Names())
    lines = [f"interface {n} {{ _sandboxStub: Boolean }}" for n in sorted(implemented - defined)]
    missing = mentioned - defined - implemented - _BUILTIN
    lines += [f"scalar {name}" for name in sorted(missing)]
    return "\n".join(lines)


@functools.lru_cache(maxsize=1)
def schema() -> GraphQLSchema:
    """GitHub's SDL subset plus our Query root; built once per process (it is not cheap)."""
    subset = (
        resources.files("syncdesk.services.sandbox")
        .joinpath("data/github_graphql_subset.graphql")
        .read_text(encoding="utf-8")
    )
    documents = [parse(subset), parse(EXTRA_SDL)]
    built = build_schema(
        f"{subset}\n{EXTRA_SDL}\n{_stubs(documents)}", assume_valid_sdl=True, no_location=True
    )
    built._validation_errors = []  # see the module docstring
    return built


def validate_query(query: str) -> list[str]:
    """The validation errors of a query against the sandbox schema (empty: valid)."""
    try:
        document = parse(query)
    except GraphQLError as error:
        return [error.message]
    return [error.message for error in validate(schema(), document)]
