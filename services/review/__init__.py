"""Review findings: their grammar and parser, the blame origin of every cited line, the
maintainer's dispositions, and the reply.
"""
