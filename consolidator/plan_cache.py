"""A dry run's plan, kept in the state dir and reused while nothing it came from has changed.

A person re-reading the report, and a service asking about the same directories all day, would
otherwise pay for a full scan and detection each time. The plan is reused only when all of
these still hold, so any change to a file is seen:

- every file the scan reads: its listing and its ``lstat`` (size, mtime, ctime, inode, mode;
  ctime changes on any write, even one that puts the mtime back), and ``MEMORY.md``;
- the config, the project root, and each project path a memory names (still there or not);
- the tool's own code;
- the clock: a deadline can pass at midnight (UTC), and a memory that was left alone for being
  changed within ``idle_minutes`` cools down. The plan expires at the first of those moments.

Ages ("N days ago", Claude Code's age note) are worked out again on every reuse. Only plans
made by the offline backend are kept: a model's answers are not replayed. A real run never
reads this cache; it always scans and plans afresh.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from consolidator import __version__, statedir
from consolidator.context import RootContext, epoch_ns
from consolidator.detect.stale import ProjectPaths
from consolidator.freshness import DAY_NS, age_days, age_warning, freshness_text
from consolidator.findings import MemoryInfo
from consolidator.plan import Plan, Written
from consolidator.store.model import INDEX_NAME, Snapshot
from consolidator.store.scan import find_index

FORMAT = 1
PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Cached:
    """What one dry run leaves for the next."""

    format: int
    key: str
    made_ns: int
    valid_until_ns: int
    project_paths: dict[str, bool]  # path as written -> missing, when the plan was made
    plan: Plan
    snapshot: Snapshot  # without the memories' bodies: the report needs only the rest


def key(ctx: RootContext) -> str | None:
    """The fingerprint of everything the plan depends on but the clock, or ``None`` when this
    run's plan must not be cached (a real run, or a backend other than the offline one)."""
    if not ctx.dry_run or not _offline(ctx):
        return None
    digest = hashlib.blake2b(digest_size=20)
    project = ctx.project
    digest.update(repr((FORMAT, __version__, str(ctx.root), ctx.cfg, project.path,
                        project.source, _local_time(), _code_stamp())).encode())
    lines = [f"{rel}\0{problem}\n" if problem is not None or st is None else _stat_line(rel, st)
             for rel, problem, st in ctx.listing()]
    digest.update("".join(lines).encode("utf-8", "surrogateescape"))
    name = find_index(ctx.root) or INDEX_NAME
    try:
        digest.update(_stat_line(name, os.lstat(ctx.root / name)).encode())
    except OSError as exc:
        digest.update(f"{name}\0{exc.errno}\n".encode())
    return digest.hexdigest()


def load(ctx: RootContext, fingerprint: str | None) -> tuple[Snapshot, Plan] | None:
    """The cached snapshot and plan (ages brought up to now), or ``None`` on any doubt."""
    if fingerprint is None:
        return None
    cached = _read(statedir.plan_cache(ctx.state))
    if cached is None or cached.key != fingerprint:
        return None
    if not cached.made_ns <= ctx.now_ns < cached.valid_until_ns:
        return None
    project = ctx.project.path
    if cached.project_paths:
        if project is None:
            return None
        paths = ProjectPaths(project)
        if any(paths.missing(p) != was for p, was in cached.project_paths.items()):
            return None
    return cached.snapshot, refresh_ages(cached.plan, ctx.now)


def save(ctx: RootContext, fingerprint: str | None, snapshot: Snapshot, plan: Plan,
         project_paths: dict[str, bool]) -> None:
    """Keep this dry run's plan for the next one (best effort: a cache is never required).

    A dry run never creates the state dir: the cache goes only where it exists already.
    """
    if fingerprint is None or not ctx.state.parent.is_dir():
        return
    cached = Cached(
        format=FORMAT,
        key=fingerprint,
        made_ns=ctx.now_ns,
        valid_until_ns=valid_until_ns(ctx, snapshot),
        project_paths=dict(project_paths),
        plan=_without_ages(plan),
        snapshot=snapshot.without_bodies(),
    )
    try:
        statedir.replace(statedir.plan_cache(ctx.state),
                         pickle.dumps(cached, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - a cache that cannot be kept must never fail a report
        pass


def valid_until_ns(ctx: RootContext, snapshot: Snapshot) -> int:
    """The first moment the plan could read differently with no file changed."""
    tomorrow = datetime.combine(ctx.now.date() + timedelta(days=1), datetime.min.time(), ctx.now.tzinfo)
    until = epoch_ns(tomorrow)  # a deadline passes when the date changes
    window = ctx.now_ns - ctx.hot_after_ns
    for memory in snapshot.memories:
        if memory.stat.mtime_ns > ctx.hot_after_ns:
            until = min(until, memory.stat.mtime_ns + window)  # it cools down
    return until


def _without_ages(plan: Plan) -> Plan:
    """What of ``plan`` is worth keeping: no age notes (they are redone on reuse) and no
    action payloads (new file bytes, which a dry run's report never shows)."""
    infos = tuple(
        dataclasses.replace(info, warnings=info.warnings[1:]) if age_warning(info.age_days)
        else info
        for info in plan.memories
    )
    actions = tuple(dataclasses.replace(a, data=b"") if isinstance(a, Written) else a
                    for a in plan.actions)
    return dataclasses.replace(plan, memories=infos, actions=actions)


def refresh_ages(plan: Plan, now: datetime) -> Plan:
    """A cached ``plan`` with every age, freshness and age note as of ``now``."""
    now_ns = int(now.timestamp() * 1_000_000_000)  # as freshness.age_days counts
    infos = []
    mtimes = {}
    for info in plan.memories:
        mtimes[info.file] = info.mtime_ns
        days = max(0, (now_ns - info.mtime_ns) // DAY_NS)
        others = info.warnings
        note = age_warning(days)
        infos.append(MemoryInfo(info.file, info.name, info.type, info.mtime_ns, days,
                                freshness_text(days), (note, *others) if note else others))
    stale = tuple(
        dataclasses.replace(s, age_days=age_days(mtimes[s.file], now)) if s.file in mtimes else s
        for s in plan.stale
    )
    return dataclasses.replace(plan, memories=tuple(infos), stale=stale)


def _offline(ctx: RootContext) -> bool:
    usage = getattr(ctx.llm, "usage", None)
    return ctx.llm is None or getattr(usage, "backend", "offline") == "offline"


def _read(path: Path) -> Cached | None:
    """The cache file, if it is ours, private, whole and of this format."""
    try:
        data = statedir.read_private(path)
        if data is None:
            return None
        cached = pickle.loads(data)  # only a file this user alone could have written
        if not (isinstance(cached, Cached) and cached.format == FORMAT
                and isinstance(cached.key, str) and isinstance(cached.made_ns, int)
                and isinstance(cached.valid_until_ns, int)
                and isinstance(cached.project_paths, dict)
                and isinstance(cached.plan, Plan) and isinstance(cached.snapshot, Snapshot)):
            return None
    except Exception:  # noqa: BLE001 - a damaged or foreign cache is only a cache miss
        return None
    return cached


def _local_time() -> tuple[object, ...]:
    """The local time zone: relative dates resolve against a file's local date."""
    return (os.environ.get("TZ"), time.timezone, time.altzone, time.daylight, time.tzname)


def _stat_line(rel: str, st: os.stat_result) -> str:
    return (f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0"
            f"{st.st_mode}\n")


def _code_stamp() -> tuple[tuple[str, int, int], ...]:
    """The package's own source files: a changed tool never reuses an old plan."""
    out = []
    for folder, _dirs, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                out.append((os.path.join(folder, name), st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))
