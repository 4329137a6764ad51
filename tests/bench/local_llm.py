"""A real model server for the benches, started with shared/tools/llm-server.sh.

The script (beside the repository, ``../shared/tools/llm-server.sh``, or named by
``DUA_LLM_SERVER_SCRIPT``) builds llama-cpp-python once, fetches the model once and runs
one server per port; a server this bench started is stopped when it is done, one that was
already running is left running. Every way it cannot start is said, for the bench to print
as its reason to skip.
"""
from __future__ import annotations

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT_ENV = "DUA_LLM_SERVER_SCRIPT"
START_TIMEOUT = 3600  # seconds: the first start builds llama-cpp-python (7-12 min on 2 cores)


def script_path(environ=None, beside: str = os.path.dirname(REPO)) -> str | None:
    """The script named by the environment, else the one in ``beside``/shared/tools."""
    environ = os.environ if environ is None else environ
    for path in (environ.get(SCRIPT_ENV), os.path.join(beside, "shared", "tools", "llm-server.sh")):
        if path and os.path.isfile(path):
            return path
    return None


class LocalServer:
    """``start()`` returns '' once the server answers (``base_url``, ``model`` and ``log``
    are then set) or why it could not; ``stop()`` stops it if this object started it."""

    def __init__(self, model: str, port: int, environ=None, beside: str = os.path.dirname(REPO)):
        self.environ = os.environ if environ is None else environ
        self.model_name, self.port = model, port
        self.script = script_path(self.environ, beside)
        self.base_url = self.model = None
        self.started = False
        home = self.environ.get("LLM_HOME", "/tmp/llm")
        self.log = os.path.join(home, "run", f"server-{port}.log")

    def start(self) -> str:
        if self.script is None:
            return (f"no llm-server.sh: set {SCRIPT_ENV} or keep shared/tools beside the "
                    "repository, or pass --base-url URL --model NAME")
        print(f"   starting {self.model_name} on port {self.port} with {self.script} "
              "(the first start builds llama-cpp-python: minutes)", file=sys.stderr, flush=True)
        try:
            proc = subprocess.run(["bash", self.script, "start", self.model_name, str(self.port)],
                                  capture_output=True, text=True, timeout=START_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"llm-server.sh start did not finish: {exc}"
        if proc.returncode != 0:
            tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
            return f"llm-server.sh start {self.model_name} {self.port} failed: {tail}"
        values = dict(line.split("=", 1) for line in proc.stdout.splitlines()
                      if line.startswith(("BASE_URL=", "MODEL=")))
        if "BASE_URL" not in values:
            return f"llm-server.sh printed no BASE_URL: {proc.stdout.strip()[:200]}"
        self.base_url, self.model = values["BASE_URL"], values.get("MODEL", self.model_name)
        # "already running": someone else's server, which is theirs to stop
        self.started = "started pid" in proc.stderr
        return ""

    def stop(self) -> None:
        if self.started and self.script:
            subprocess.run(["bash", self.script, "stop", str(self.port)], capture_output=True,
                           text=True, timeout=60)
            self.started = False
