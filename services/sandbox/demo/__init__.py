"""The demo pull request's GitHub side: its cast, commits, checks, reviews and texts."""
