"""Batch runs: one generated parser over many PDFs, through the sandbox, on any Executor.

``run()`` never lets one bad file stop the batch: each file ends converted, skipped (its
output is already complete) or failed with its typed error and the Error Handler's feedback.
Rows that did not pass their checks are written apart, as ``<name>.<verdict>.csv``.
Outputs are written atomically, so an interrupted batch can simply be re-run. Scaling out is
the caller's ``concurrent.futures.Executor`` (a process pool by default, Dask's
``Client.get_executor()`` or Ray's on a cluster); there is no cluster code here.

``plan`` (tasks and output paths), ``runner`` (the loop), ``worker`` (one file, in a worker),
``stamps`` (the resume record) and ``results`` (the data they exchange).
"""
from __future__ import annotations

from .plan import check_parser, default_workers, output_paths, plan, verdict_path
from .results import BatchResult, FileResult, Progress, Task
from .runner import run
from .stamps import is_complete
from .worker import AGENT_ID, convert, no_agent, write_csv_atomically

__all__ = ("AGENT_ID", "BatchResult", "FileResult", "Progress", "Task", "check_parser", "convert",
           "default_workers", "is_complete", "no_agent", "output_paths", "plan", "run",
           "verdict_path", "write_csv_atomically")
