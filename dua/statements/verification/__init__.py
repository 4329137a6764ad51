"""The checks of a reading: against an expected CSV, the statement's own arithmetic, every word
of the table given one owner (``ledger``), what the page prints about the rows, and the rules
that fired.

Judges only: it must not import learning, agent or output, and never changes settings.
"""
