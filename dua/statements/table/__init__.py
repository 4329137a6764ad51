"""The page's table: words into lines, lines into rows and cells, columns and their heading,
the money's notation, sections and tiers, and the arithmetic that names the balance column.

``amounts``, ``pagewords``, ``wordlines``, ``datewraps``, ``engine`` and ``dataframe`` are copied
verbatim, in that order, into every generated parser: they import only the standard library,
pandas and each other.
Must not import learning, verification, agent or output; of dua, only ``notation``.
"""
