"""The LLM layer: a urllib transport, two providers behind one interface, seed 002 and 003.

``get_provider(settings)`` looks the provider up by name (bottle's server_names);
each provider module is imported only when chosen.
"""
from __future__ import annotations

import importlib

from ..errors import UsageError

# provider name -> (module, class)
PROVIDERS = {
    "openai": ("openai_compat", "OpenAICompatProvider"),
    "gemini": ("gemini", "GeminiProvider"),
}


def get_provider(settings, **options):
    """The provider named by ``settings.provider``; ``options`` go to its constructor.

    Raises:
        UsageError: the built-in engine was chosen, or the name is unknown.
    """
    if settings.provider not in PROVIDERS:
        raise UsageError(f"no LLM provider {settings.provider!r}",
                         hint="Set --provider openai|gemini or DUA_LLM_PROVIDER.")
    module, cls = PROVIDERS[settings.provider]
    return getattr(importlib.import_module(f".{module}", __package__), cls)(settings, **options)
