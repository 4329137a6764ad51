"""The reading's settings: the layout's own first guess (``analysis``) and what the answer key
teaches where its rows stand on the page (``evidence``, ``learning``, ``keyspec``, ``wrapping``).

Settings only, never the key's values. Must not import verification, agent or output:
a reading is learned here and judged later.
"""
