"""The report: the sync's facts, its pull request and its status as sections, in JSON,
text and Markdown.
"""
