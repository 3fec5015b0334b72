"""Config: TOML in, frozen dataclasses out, every problem reported at once.

The dataclass defaults below are the single source of the built-in defaults; the shipped
``config.toml`` states the same values (a test keeps the two equal).
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
import typing
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from consolidator import clock
from consolidator.errors import ConfigError


def _meta(
    *, minimum: int | None = None, maximum: int | None = None, choices: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {"minimum": minimum, "maximum": maximum, "choices": choices}


# Upper bounds: a value past them is a typo, and some (an interval of 2**63 seconds) would
# only fail once the service starts, or never fire at all.
YEAR_S = 365 * 24 * 3600
YEAR_MIN = YEAR_S // 60
YEAR_H = YEAR_S // 3600
CRON_HORIZON_DAYS = 5 * 366  # a cron expression must fire within this many days


@dataclass(frozen=True)
class MemorySection:
    roots: tuple[str, ...] = ()  # none: every store Claude Code keeps (see stores.py)
    transcripts_dir: str | None = None
    project_root: str | None = None


@dataclass(frozen=True)
class GatesSection:
    enabled: bool = True
    idle_minutes: int = field(default=15, metadata=_meta(minimum=0, maximum=YEAR_MIN))
    min_hours: int = field(default=24, metadata=_meta(minimum=0, maximum=YEAR_H))
    scan_interval_minutes: int = field(default=10, metadata=_meta(minimum=0, maximum=YEAR_MIN))
    min_sessions: int = field(default=5, metadata=_meta(minimum=0, maximum=1_000_000))
    lock_stale_minutes: int = field(default=60, metadata=_meta(minimum=1, maximum=YEAR_MIN))


@dataclass(frozen=True)
class ScheduleSection:
    cron: str | None = "*/10 * * * *"
    interval_seconds: int | None = field(default=None, metadata=_meta(minimum=1, maximum=YEAR_S))


@dataclass(frozen=True)
class IndexSection:
    max_lines: int = field(default=200, metadata=_meta(minimum=10, maximum=1_000_000))
    max_bytes: int = field(default=25000, metadata=_meta(minimum=1000, maximum=100_000_000))
    max_line_chars: int = field(default=150, metadata=_meta(minimum=40, maximum=1_000_000))


@dataclass(frozen=True)
class LlmSection:
    backend: str = field(default="offline", metadata=_meta(choices=("offline", "anthropic")))
    model: str = "claude-haiku-4-5"
    max_calls_per_run: int = field(default=20, metadata=_meta(minimum=0, maximum=1_000_000))
    max_input_tokens_per_run: int = field(
        default=60000, metadata=_meta(minimum=0, maximum=1_000_000_000))
    base_url: str | None = None
    timeout_seconds: int = field(default=60, metadata=_meta(minimum=1, maximum=24 * 3600))


APPLY_MODES = ("safe", "all", "none")


@dataclass(frozen=True)
class ConsolidateSection:
    apply: str = field(default="safe", metadata=_meta(choices=APPLY_MODES))
    archive_status_markers: bool = True
    archive_passed_deadlines: bool = True
    archive_gone_citations: bool = True
    rewrite_relative_dates: bool = True
    resolve_conflicts: bool = False


@dataclass(frozen=True)
class StateSection:
    dir: str | None = None
    keep_days: int = field(default=180, metadata=_meta(minimum=1, maximum=36500))
    keep_runs: int = field(default=200, metadata=_meta(minimum=1, maximum=1_000_000))


@dataclass(frozen=True)
class MetricsSection:
    textfile: str | None = None  # a Prometheus textfile written after each pass


@dataclass(frozen=True)
class LogSection:
    format: str = field(default="auto", metadata=_meta(choices=("auto", "json", "console")))
    level: str = field(
        default="info", metadata=_meta(choices=("debug", "info", "warning", "error"))
    )


@dataclass(frozen=True)
class Config:
    memory: MemorySection = MemorySection()
    gates: GatesSection = GatesSection()
    schedule: ScheduleSection = ScheduleSection()
    index: IndexSection = IndexSection()
    llm: LlmSection = LlmSection()
    consolidate: ConsolidateSection = ConsolidateSection()
    state: StateSection = StateSection()
    log: LogSection = LogSection()
    metrics: MetricsSection = MetricsSection()
    source: str = field(default="built-in defaults", compare=False)


_SECTIONS: dict[str, type[Any]] = {
    f.name: typing.get_type_hints(Config)[f.name]
    for f in dataclasses.fields(Config)
    if f.name != "source"
}


def _suggest(word: str, options: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_value(path: str, value: Any, hint: Any, meta: typing.Mapping[str, Any]) -> list[str]:
    """Return the problems with ``value`` for a field typed ``hint``."""
    args = typing.get_args(hint)
    optional = type(None) in args
    base = next((a for a in args if a is not type(None)), hint) if args and optional else hint
    if typing.get_origin(base) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return [f"{path}: expected a list of strings, got {_tname(value)}"]
        return []  # each item is checked as a glob
    if base is bool:
        ok = isinstance(value, bool)
    elif base is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, base)
    if not ok:
        return [f"{path}: expected {base.__name__}, got {_tname(value)} {value!r}"]
    if isinstance(value, str) and "\x00" in value:
        return [f"{path}: NUL byte in {value!r}"]
    if meta.get("minimum") is not None and value < meta["minimum"]:
        return [f"{path}: must be at least {meta['minimum']}, got {value}"]
    if meta.get("maximum") is not None and value > meta["maximum"]:
        return [f"{path}: must be at most {meta['maximum']}{_unit(path, meta['maximum'])}, "
                f"got {value}"]
    if meta.get("choices") and value not in meta["choices"]:
        allowed = ", ".join(meta["choices"])
        suggestion = _suggest(value, meta["choices"])
        return [f"{path}: must be one of {allowed}, got {value!r}{suggestion}"]
    return []


def _unit(path: str, maximum: int) -> str:
    """`` s (one year)`` and the like, for the time bounds."""
    if maximum not in (YEAR_S, YEAR_MIN, YEAR_H):
        return ""
    unit = next((u for suffix, u in (("_seconds", "s"), ("_minutes", "min"), ("_hours", "h"))
                 if path.endswith(suffix)), "")
    return f" {unit} (one year)" if unit else ""


def _tname(value: Any) -> str:
    return {"str": "string", "int": "integer", "list": "list", "dict": "table"}.get(
        type(value).__name__, type(value).__name__
    )


def _check_glob(path: str, pattern: str) -> list[str]:
    if not pattern.strip():
        return [f"{path}: empty pattern"]
    depth = 0
    for ch in pattern:
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
    if depth:
        return [f"{path}: unbalanced '[' in glob {pattern!r}"]
    if "\x00" in pattern:
        return [f"{path}: NUL byte in glob"]
    return []


def _check_cron(path: str, expr: str) -> list[str]:
    """A crontab expression APScheduler accepts and that fires within a few years (one that
    names a day that never comes, ``0 0 30 2 *``, would leave the service idle forever)."""
    if "\x00" in expr:
        return [f"{path}: NUL byte in {expr!r}"]
    if len(expr.split()) != 5:
        return [f"{path}: a crontab expression has 5 fields, got {expr!r}"]
    try:
        from apscheduler.triggers.cron import CronTrigger
    except ImportError:  # pragma: no cover - apscheduler is a dependency
        return []
    try:
        trigger = CronTrigger.from_crontab(expr, timezone="UTC")
        now = clock.now()
        first = trigger.get_next_fire_time(None, now)
    except (ValueError, TypeError, OverflowError, KeyError, IndexError) as exc:
        return [f"{path}: invalid crontab expression {expr!r}: {exc}"]
    if first is None or first - now > timedelta(days=CRON_HORIZON_DAYS):
        return [f"{path}: crontab expression {expr!r} never fires "
                f"(no time matches it in the next {CRON_HORIZON_DAYS // 366} years)"]
    return []


def from_mapping(data: typing.Mapping[str, Any], source: str) -> Config:
    """Build a :class:`Config` from parsed TOML; raise :class:`ConfigError` listing all problems."""
    problems: list[str] = []
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _SECTIONS:
            problems.append(f"{name}: unknown section{_suggest(name, _SECTIONS)}")
            continue
        if not isinstance(value, dict):
            problems.append(f"{name}: expected a table, got {_tname(value)}")
            continue
        cls = _SECTIONS[name]
        hints = typing.get_type_hints(cls)
        known = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, item in value.items():
            path = f"{name}.{key}"
            if key not in known:
                problems.append(f"{path}: unknown key{_suggest(key, known)}")
                continue
            found = _check_value(path, item, hints[key], known[key].metadata)
            problems.extend(found)
            if not found:
                kwargs[key] = tuple(item) if isinstance(item, list) else item
        sections[name] = cls(**kwargs)
    cfg = Config(**sections, source=source)
    if "memory" in sections:
        for i, pattern in enumerate(cfg.memory.roots):
            problems.extend(_check_glob(f"memory.roots[{i}]", pattern))
        if not cfg.memory.roots and "roots" in data["memory"]:
            problems.append("memory.roots: needs at least one pattern (leave it out to "
                            "consolidate every store Claude Code keeps)")
    schedule_given = data.get("schedule", {}) if isinstance(data.get("schedule"), dict) else {}
    if "cron" in schedule_given and "interval_seconds" in schedule_given:
        problems.append("schedule: set either cron or interval_seconds, not both")
    elif "interval_seconds" in schedule_given:
        cfg = dataclasses.replace(
            cfg, schedule=dataclasses.replace(cfg.schedule, cron=None)
        )
    if cfg.schedule.cron is not None and "cron" in schedule_given:
        problems.extend(_check_cron("schedule.cron", cfg.schedule.cron))
    if problems:
        raise ConfigError(source, problems)
    return cfg


def load(path: Path | None) -> Config:
    """Load the config at ``path`` (``None``: the built-in defaults).

    Raises :class:`ConfigError` when the file is unreadable, is not TOML, or has problems.
    """
    if path is None:
        return Config()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(str(path), [f"cannot read: {exc.strerror or exc}"]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(str(path), ["not UTF-8 text"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), [f"not valid TOML: {exc}"]) from None
    return from_mapping(data, str(path))
