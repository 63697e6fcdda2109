"""The pull request side: access and the token, the head branch a pull request is found by,
the pull request models, the CI rollup, patch coverage, DCO and its override request, and the
status that gathers them.
"""
