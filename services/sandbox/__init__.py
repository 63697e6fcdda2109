"""A GitHub-compatible server on 127.0.0.1 for the offline demo and the tests."""
