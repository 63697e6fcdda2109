"""The dev-feature preservation audit: dev lines the sync merge may have lost, where they
are read from, and their triage.
"""
