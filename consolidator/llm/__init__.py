"""Backends that judge what detect found: offline (the default) and anthropic."""

from __future__ import annotations

from collections.abc import Mapping

from consolidator.config import LlmSection
from consolidator.llm.base import Backend, Offline


def make_backend(cfg: LlmSection, env: Mapping[str, str], enabled: bool) -> Backend:
    """The configured backend; offline when not enabled, not configured, or keyless.

    The anthropic SDK is imported only here, and only when that backend is chosen.
    """
    if not enabled or cfg.backend != "anthropic":
        return Offline()
    key = env.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        backend = Offline()
        backend.usage.standing.append(
            "llm.backend is anthropic but ANTHROPIC_API_KEY is not set; decided offline"
        )
        return backend
    from consolidator.llm.anthropic_backend import Anthropic

    return Anthropic(cfg, env, key)
