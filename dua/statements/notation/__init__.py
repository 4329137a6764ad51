"""Dates as statements print them: the shapes, the notation induced from a column of them, the
month names of every language, and the ISO date a row's printed date stands for.

Owns strings and patterns only: it must not import any other stage (no words, no table,
no settings), nor dua outside the statements.
"""
