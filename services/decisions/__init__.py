"""What the maintainer decided, kept: the workspace state, its codec, its store and its
ordered saver, and the carry-over store of resolutions learned from earlier syncs.
"""
