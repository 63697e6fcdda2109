"""The sandbox's REST routes: repository, commits, issues and pull requests."""
