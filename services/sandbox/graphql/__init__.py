"""GraphQL on the sandbox: GitHub's SDL subset, the Query root and its resolvers."""
