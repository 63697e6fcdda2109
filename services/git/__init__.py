"""git, and nothing above it: the one runner, reading objects in bulk, trees and commits
built with plumbing, ref moves by compare-and-swap, crash-safe files, and the files syncdesk
keeps under the git directory (pinned against gc).
"""
