"""dua's tests. Discovered as a whole (``python -m unittest discover -s tests -t .``), the
suite ends with a check that it left the working tree and the temporary folder as they were
(``tests/leftovers.py``)."""
import os


def load_tests(loader, standard_tests, pattern):
    from . import leftovers

    leftovers.SUITE.append(leftovers.Suite())  # seen before the first test runs
    standard_tests.addTests(loader.discover(os.path.dirname(__file__), pattern or "test*.py"))
    standard_tests.addTest(leftovers.LeftoversTest(
        "test_the_suite_leaves_the_working_tree_and_the_temporary_folder_as_they_were"))
    return standard_tests
