"""One module per CLI subcommand: DESCRIPTION, EXAMPLES, add_arguments(parser), run(args, settings).

Modules here stay light at import time; they import their feature lazily inside run().
"""
