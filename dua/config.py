"""Settings: the one frozen configuration object, and the one door to the environment.

Precedence is written once, in ``Settings.resolve``: flag > ``DUA_*`` variable > default.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Mapping

from .errors import UsageError

PROVIDERS = ("builtin", "openai", "gemini")

# flag name -> environment variable
ENV_VARS = {
    "provider": "DUA_LLM_PROVIDER",
    "base_url": "DUA_LLM_BASE_URL",
    "model": "DUA_LLM_MODEL",
    "api_key": "DUA_LLM_API_KEY",
    "timeout": "DUA_LLM_TIMEOUT",
    "home": "DUA_HOME",
    "llm_budget": "DUA_LLM_BUDGET",
}

DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta",
}


class Secret(str):
    """A string that never shows itself in repr, str formatting of containers, or logs."""

    def __repr__(self) -> str:
        return "Secret('****')" if self else "Secret('')"

    def reveal(self) -> str:
        return str.__str__(self)


def default_home(environ: Mapping[str, str]) -> str:
    """A per-user state directory (XDG on Unix)."""
    base = environ.get("XDG_STATE_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "dua")


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything a dua run is configured by. Library callers build it directly."""

    provider: str = "builtin"
    base_url: str | None = None
    model: str | None = None
    api_key: Secret | None = dataclasses.field(default=None, repr=False)
    timeout: float = 60.0
    home: str | None = None
    llm_budget: float | None = None  # the run's total LLM seconds; None: 10 x timeout


    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise UsageError(
                f"Unknown LLM provider {self.provider!r}; expected one of {', '.join(PROVIDERS)}",
                hint="Set --provider or DUA_LLM_PROVIDER.",
            )
        if self.api_key is not None and not isinstance(self.api_key, Secret):
            object.__setattr__(self, "api_key", Secret(self.api_key))
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise UsageError(
                f"LLM timeout must be a positive number of seconds, got {self.timeout!r}",
                hint="Set --llm-timeout or DUA_LLM_TIMEOUT.",
            )
        if self.llm_budget is not None and not (
                isinstance(self.llm_budget, (int, float)) and self.llm_budget > 0):
            raise UsageError(
                f"LLM budget must be a positive number of seconds, got {self.llm_budget!r}",
                hint="Set --llm-budget or DUA_LLM_BUDGET.",
            )

    @property
    def uses_llm(self) -> bool:
        return self.provider != "builtin"

    @property
    def resolved_base_url(self) -> str | None:
        return self.base_url or DEFAULT_BASE_URLS.get(self.provider)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **flags: object) -> Settings:
        """Build settings from flags (None = not given), then ``DUA_*`` variables, then defaults."""
        env = os.environ if environ is None else environ
        values: dict = {}
        for name, var in ENV_VARS.items():
            flag = flags.get(name)
            raw = flag if flag is not None else env.get(var) or None
            if raw is not None:
                values[name] = raw
        if "timeout" in values:
            values["timeout"] = _seconds(values["timeout"])
        if "llm_budget" in values:
            values["llm_budget"] = _seconds(values["llm_budget"], "LLM budget", "--llm-budget",
                                            "DUA_LLM_BUDGET")
        if "provider" in values:
            values["provider"] = str(values["provider"]).strip().lower()
        values.setdefault("home", default_home(env))
        return cls(**values)


def _seconds(raw: object, what: str = "LLM timeout", flag: str = "--llm-timeout",
             var: str = "DUA_LLM_TIMEOUT") -> float:
    try:
        return float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UsageError(
            f"{what} must be a number of seconds, got {raw!r}",
            hint=f"Set {flag} or {var}.",
        ) from None
