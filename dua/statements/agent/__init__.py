"""The agent (seed 001) and its writers: the workflow on ``dua.graph``, the built-in and LLM
writers with their prompts, the parser's provenance, the Error Handler's steps, and ``dua
check``'s rows read back by the writer's search (``rowcheck``).

It may use every stage before it; it must not import ``output``.
"""
