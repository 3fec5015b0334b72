"""Backends that judge what detect found: offline (the default) and anthropic."""

from __future__ import annotations

from collections.abc import Mapping

from consolidator.config import LlmSection
from consolidator.llm.base import Backend, Offline


def make_backend(cfg: LlmSection, env: Mapping[str, str], enabled: bool,
                 explicit: bool = False) -> Backend:
    """The configured backend; offline when not enabled, not configured, or keyless
    (``explicit``: a person asked for a model by a flag, and is told why none was asked).

    The anthropic SDK is imported only here, and only when that backend is chosen.
    """
    if not enabled:
        return Offline()
    if cfg.backend != "anthropic":
        backend = Offline()
        if explicit:  # `report --llm` asked for a model the config does not name
            backend.usage.standing.append(
                f'--llm: llm.backend is "{cfg.backend}", so no model was asked; set '
                'llm.backend = "anthropic" (and ANTHROPIC_API_KEY) to ask one')
        return backend
    key = env.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        backend = Offline()
        backend.usage.standing.append(
            "llm.backend is anthropic but ANTHROPIC_API_KEY is not set; decided offline"
        )
        return backend
    from consolidator.llm.anthropic_backend import Anthropic

    return Anthropic(cfg, env, key)
