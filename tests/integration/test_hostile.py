"""Hostile memory directories: never a crash, never a hang, never a write outside the root and
the state dir, never a change to a file that could not be parsed.

Each case builds a root of ordinary memories (a duplicate pair, a relative date, an index: so
the run really writes) plus one kind of hostile content, then runs ``report`` and
``run --force`` as real processes with a timeout. Checked after each:

- exit 0 and no traceback, within the timeout;
- ``report`` changed nothing in the root;
- every entry of the root that is not a parsed memory (files the scan could not parse,
  non-``.md`` files, symlinks, FIFOs, devices, ``MEMORY.md`` when it cannot be read) is
  byte-for-byte, mtime and mode the same afterwards;
- nothing outside the root and the state dir changed: every entry under the pytest base
  folder (other tests' folders, this test's HOME, the symlink targets) is the same;
- the lines of every parsed memory are still in a live memory or under the state dir, and no
  temp file is left in the root.

Special files are never opened by these checks (a FIFO would block, a device never end).
The 100,000-file case takes over a minute: it is marked ``slow`` (run with ``-m slow``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DAY = 86400
LOCKS = (".consolidate-lock", ".consolidate.flock")
INDEX = "MEMORY.md"
TIMEOUT_S = 120
_SCRUB = ("CONSOLIDATOR_", "CLAUDE_CODE_", "ANTHROPIC_", "STATE_DIRECTORY")

Entry = tuple[Any, ...]


# --------------------------------------------------------------------------- snapshots


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def entry(path: str, st: os.stat_result, content: bool) -> Entry:
    """What an entry is (``st``: its lstat), without following a symlink or opening anything
    but a regular file (and that only when ``content``)."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(mode):
        return ("dir", stat.S_IMODE(mode))
    if stat.S_ISREG(mode):
        digest = _digest(Path(path)) if content else None
        return ("file", st.st_size, st.st_mtime_ns, stat.S_IMODE(mode), digest)
    return ("special", stat.S_IFMT(mode), st.st_rdev, st.st_mtime_ns, stat.S_IMODE(mode))


def entries(
    top: Path, skip: frozenset[Path] = frozenset(), content: bool = True
) -> dict[str, Entry]:
    """Every entry under ``top`` (symlinked folders listed, not entered), minus ``skip``."""
    skipped = {str(p) for p in skip}
    out = {}
    stack = [(str(top), "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as listing:
            for item in listing:
                if item.path in skipped:
                    continue
                st = item.stat(follow_symlinks=False)
                out[prefix + item.name] = entry(item.path, st, content)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((item.path, f"{prefix}{item.name}/"))
    return out


def _lines(data: bytes) -> set[str]:
    return {line.rstrip("\r") for line in data.decode("utf-8", "replace").split("\n")
            if line.strip()}


# --------------------------------------------------------------------------- building roots


def put(root: Path, rel: str, data: str | bytes, days: float = 10) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp), follow_symlinks=False)
    return path


def memory(name: str, body: str, description: str = "", extra: str = "") -> str:
    return (f"---\nname: {name}\ndescription: {description or 'Notes about ' + name}\n"
            f"type: project\n{extra}---\n{body}")


API = ("- The public API is versioned in the URL path.\n"
       "- Breaking changes need a new major version.\n")


def ordinary(root: Path) -> None:
    """Memories the run merges, rewrites and indexes, whatever else the root holds."""
    put(root, "project_api.md", memory("project_api", API + "- Pagination uses cursors.\n"), 20)
    put(root, "project_api_copy.md", memory("project_api_copy", API), 15)
    put(root, "project_demo.md", memory("project_demo", "We moved the demo yesterday.\n"), 6)
    put(root, "user_role.md", memory("user_role", "The user maintains the billing service.\n"), 40)
    put(root, INDEX, "# Memory\n\n- [API](project_api.md) — the public API\n", 5)


def symlinks_out_of_root(root: Path, outside: Path) -> None:
    secret = put(outside, "secret.md", memory("secret", API + "- Outside the root.\n"), 30)
    put(outside, "folder/inner.md", memory("inner", "A memory behind a folder link.\n"), 30)
    put(outside, "victim.txt", "must survive\n", 30)
    (root / "abs_link.md").symlink_to(secret)
    (root / "rel_link.md").symlink_to(Path("..") / "outside" / "secret.md")
    (root / "linked_folder").symlink_to(outside / "folder", target_is_directory=True)
    (root / "etc_link.md").symlink_to("/etc/hostname")
    (root / "dangling.md").symlink_to(outside / "nothing-here.md")
    (root / ".evil.abcdefgh.tmp").symlink_to(outside / "victim.txt")  # looks like our temp


def symlink_to_outside_index(root: Path, outside: Path) -> None:
    target = put(outside, "index.md", "# Someone else's index\n- [x](x.md) — x\n", 30)
    (root / INDEX).unlink()
    (root / INDEX).symlink_to(target)


def symlink_loops(root: Path, outside: Path) -> None:
    (root / "a.md").symlink_to("b.md")
    (root / "b.md").symlink_to("a.md")
    (root / "self.md").symlink_to("self.md")
    (root / "loop").symlink_to(".", target_is_directory=True)
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..", target_is_directory=True)
    put(root, "sub/real.md", memory("real", "A real memory beside a loop.\n"), 12)


def fifos(root: Path, outside: Path) -> None:
    os.mkfifo(root / "pipe.md")
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / "pipe2.md")
    os.mkfifo(root / "pipe.txt")


def fifo_index(root: Path, outside: Path) -> None:
    (root / INDEX).unlink()
    os.mkfifo(root / INDEX)


def device_nodes(root: Path, outside: Path) -> None:
    try:
        os.mknod(root / "null.md", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null
        os.mknod(root / "zero.md", 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # never ends
    except PermissionError:
        pytest.skip("mknod is not permitted here")


def huge_sparse_memory(root: Path, outside: Path) -> None:
    path = put(root, "huge.md", memory("huge", "Starts like a memory.\n"), 30)
    os.truncate(path, 100 * 1024 * 1024)
    stamp = time.time() - 30 * DAY
    os.utime(path, (stamp, stamp))


def huge_sparse_index(root: Path, outside: Path) -> None:
    path = root / INDEX
    os.truncate(path, 100 * 1024 * 1024)
    stamp = time.time() - 5 * DAY
    os.utime(path, (stamp, stamp))


def binary_junk(root: Path, outside: Path) -> None:
    rng = random.Random(1)
    put(root, "junk.md", rng.randbytes(4096), 30)
    put(root, "junk_frontmatter.md", b"---\nname: junk\n" + rng.randbytes(2048) + b"\n---\n", 30)
    put(root, "junk_no_nul.md", bytes(rng.choice(range(1, 256)) for _ in range(4096)), 30)
    put(root, "junk.bin", rng.randbytes(4096), 30)


def invalid_utf8(root: Path, outside: Path) -> None:
    put(root, "bad_value.md", b"---\nname: bad\ndescription: caf\xe9\ntype: project\n---\nx\n", 30)
    put(root, "bad_body.md", b"---\nname: bad_body\ndescription: d\ntype: project\n---\n\xff\xfe\n",
        30)
    put(root, "overlong.md", b"---\nname: o\xc0\xafx\ndescription: d\ntype: project\n---\nx\n", 30)
    put(root, "surrogate.md", b"---\nname: s\xed\xa0\x80\ndescription: d\ntype: project\n---\n",
        30)
    put(root, "bom_bad.md", b"\xef\xbb\xbf---\nname: b\n\x80\n---\n", 30)


ODD_NAMES = ("new\nline.md", "with space.md", "-rf.md", "--memory-dir.md", "- dash space.md",
             "tab\tname.md", "(paren).md", "[bracket].md", "<angle>.md", "hash#x.md",
             "percent%20.md", "back\\slash.md", "ünïcødé 記憶.md", "..dots.md", "-")


def odd_file_names(root: Path, outside: Path) -> None:
    for i, name in enumerate(ODD_NAMES):
        rel = name if name.endswith(".md") else f"{name}.md"
        put(root, rel, memory(f"odd_{i}", f"Odd name fact {i}: alpha{i} beta{i} gamma{i}.\n"), 12)
    # Two of them say the same thing: a merge across odd names, and a link to repoint.
    put(root, "-rf copy.md", memory("odd_copy", "Odd name fact 1: alpha1 beta1 gamma1.\n"), 11)
    put(root, "links to odd.md", memory("links", "See [odd](<-rf copy.md>) and [[odd_copy]].\n"),
        13)
    put(root, "new\nline.txt", "not markdown\n", 12)


def deep_nesting(root: Path, outside: Path) -> None:
    folder = root
    for level in range(1, 101):
        folder = folder / f"d{level}"
        if level in (1, 31, 32, 33, 50, 100):
            put(folder, f"level_{level}.md", memory(f"level_{level}", f"At depth {level}.\n"), 20)
    put(folder, "no_frontmatter.md", "deepest notes, no frontmatter\n", 20)
    put(folder, "MEMORY.md", "# not the index\n", 20)


def _laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for key in "bcdefghi":
        lines.append(f"{key}: &{key} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = key
    return "\n".join(lines) + "\n"


def _merge_bomb() -> str:
    lines = ["m0: &m0 {k0: 1, k1: 2, k2: 3, k3: 4, k4: 5, k5: 6, k6: 7, k7: 8}"]
    for i in range(1, 12):
        lines.append(f"m{i}: &m{i} {{<<: *m{i-1}, l{i}: [*m{i-1}, *m{i-1}, *m{i-1}, *m{i-1}]}}")
    return "\n".join(lines) + "\nmetadata: *m11\n"


def yaml_bombs(root: Path, outside: Path) -> None:
    put(root, "laughs.md", memory("laughs", API, extra=_laughs()), 30)
    put(root, "merge_keys.md", memory("merge_keys", "Merge keys all the way down.\n",
                                      extra=_merge_bomb()), 30)
    put(root, "deep_flow.md", memory("deep_flow", "Deeply nested flow.\n",
                                     extra="z: " + "[" * 20000 + "]" * 20000 + "\n"), 30)
    put(root, "alias_name.md", "---\nname: &n laughs\ndescription: *n\ntype: project\n---\n"
        "Aliased name.\n", 30)
    put(root, "unclosed.md", "---\nname: x\na: &a [*a]\n", 30)
    put(root, "recursive.md", "---\nname: r\na: &a [*a]\n---\nself-referencing alias\n", 30)


def names_with_paths(root: Path, outside: Path) -> None:
    for i, name in enumerate(("../../outside/evil", "/etc/passwd", "sub/../../x", "..", "a/b")):
        put(root, f"project_path_{i}.md",
            memory(json.dumps(name), f"Path-like name {i}: delta{i} epsilon{i}.\n",
                   description=json.dumps(f"about {name}")), 14)
    put(root, "project_path_dup.md",
        memory('"../../outside/evil2"', "Path-like name 0: delta0 epsilon0.\n"), 13)


def escaping_links(root: Path, outside: Path) -> None:
    put(outside, "secret.md", memory("secret", "Outside the root.\n"), 30)
    body = ("Links: [up](../outside/secret.md), [abs](/etc/passwd.md), [deep](../../../../x.md),\n"
            "[win](C:\\Users\\x.md), [url](file:///etc/passwd.md), [[../../outside/secret]],\n"
            "[copy](project_api_copy.md) and [dot](./../memory/project_api_copy.md).\n")
    put(root, "project_links.md", memory("project_links", body), 25)
    facts = "".join(f"- fact {i} about [x](../outside/secret.md) and [y](/abs/{i}.md)\n"
                    for i in range(230))
    put(root, INDEX, "# Memory\n\n- [API](project_api.md) — the public API\n"
        "- [Up](../outside/secret.md) — escapes the root\n"
        "- [Abs](/etc/passwd.md) — absolute\n"
        "- [Copy](./project_api_copy.md) — merged away\n\n"
        "## ../../outside/heading\n" + facts, 5)


CASES: dict[str, tuple[Callable[[Path, Path], None], bool]] = {
    # name: (builder, MEMORY.md must be left alone too)
    "symlinks-out-of-root": (symlinks_out_of_root, False),
    "memory-md-symlinked-out": (symlink_to_outside_index, True),
    "symlink-loops": (symlink_loops, False),
    "fifos": (fifos, False),
    "memory-md-is-a-fifo": (fifo_index, True),
    "device-nodes": (device_nodes, False),
    "100-mb-sparse-memory": (huge_sparse_memory, False),
    "100-mb-sparse-index": (huge_sparse_index, True),
    "binary-junk": (binary_junk, False),
    "invalid-utf8": (invalid_utf8, False),
    "odd-file-names": (odd_file_names, False),
    "100-nested-folders": (deep_nesting, False),
    "yaml-anchors-and-aliases": (yaml_bombs, False),
    "names-with-dots-and-slashes": (names_with_paths, False),
    "links-out-of-the-root": (escaping_links, False),
}


# --------------------------------------------------------------------------- running


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB)}


def consolidator(logs: Path, *args: str) -> tuple[int, str, str]:
    """Run the CLI as a process with a timeout; output through files (never a full pipe)."""
    logs.mkdir(parents=True, exist_ok=True)
    n = len(list(logs.iterdir()))
    out, err = logs / f"{n}.out", logs / f"{n}.err"
    with open(out, "wb") as so, open(err, "wb") as se:
        try:
            code = subprocess.run([sys.executable, "-m", "consolidator", *args], check=False,
                                  stdout=so, stderr=se, env=child_env(), cwd=REPO,
                                  timeout=TIMEOUT_S).returncode
        except subprocess.TimeoutExpired:
            pytest.fail(f"consolidator {args[0]} hung for more than {TIMEOUT_S} s")
    return code, out.read_text("utf-8", "replace"), err.read_text("utf-8", "replace")


class Hostile:
    """A root with ordinary memories and one hostile case, in ``base``."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "memory"
        self.state = base / "state"
        self.outside = base / "outside"
        self.logs = base / "logs"
        self.project = base / "project"
        for folder in (self.root, self.outside, self.project):
            folder.mkdir(parents=True)
        ordinary(self.root)

    def common(self) -> list[str]:
        return ["--memory-dir", str(self.root), "--state-dir", str(self.state),
                "--project-root", str(self.project)]

    def world(self) -> dict[str, Entry]:
        """Everything under the pytest base folder (``tmp_path.parent``: every test's folder,
        this test's HOME) but this root, state dir and logs: bytes too for this test's own
        folder, metadata for the rest."""
        top = self.base.parent.parent
        skip = frozenset({self.root, self.state, self.logs})
        out = entries(top, skip | {self.base}, content=False)
        out.update({f"base/{k}": v for k, v in entries(self.base, skip).items()})
        return out

    def check(self, index_protected: bool) -> dict[str, Any]:
        """Report, then run --force; assert every invariant; return the run's report."""
        root = self.root
        before = entries(root)
        world = self.world()
        original = {rel: (root / rel).read_bytes() for rel, e in before.items()
                    if e[0] == "file" and e[1] <= 1 << 20}

        code, out, err = consolidator(self.logs, "report", "--format", "json", *self.common())
        assert code == 0, err[-3000:]
        assert "Traceback" not in out + err
        assert entries(root) == before, "report changed the root"
        planned = json.loads(out)["roots"][0]
        parsed = {m["file"] for m in planned["memories"]}

        code, out, err = consolidator(self.logs, "run", "--force", "--json", *self.common())
        assert code == 0, err[-3000:]
        assert "Traceback" not in out + err
        report: dict[str, Any] = json.loads(out)["roots"][0]
        assert report["status"] == "consolidated"

        after = entries(root)
        protected = [rel for rel, e in before.items() if e[0] != "dir" and rel not in parsed
                     and rel not in LOCKS and (rel != INDEX or index_protected)]
        changed = [rel for rel in protected if after.get(rel) != before[rel]]
        assert changed == [], f"files that could not be parsed were changed: {changed}"
        assert self.world() == world, "something outside the root and the state dir changed"
        assert not [rel for rel in after if rel.endswith(".tmp") and rel not in before]

        have: set[str] = set()
        for rel, e in after.items():
            if e[0] == "file" and rel.endswith(".md") and e[1] <= 1 << 20:
                have |= _lines((root / rel).read_bytes())
        for path in self.state.rglob("*"):
            if path.is_file() and not path.is_symlink():
                have |= _lines(path.read_bytes())
        lost = [f"{rel}: {line}" for rel in sorted(parsed) if rel in original
                for line in sorted(_lines(original[rel])) if line not in have]
        assert lost == []
        print(f"\n{self.base.name}: {len(parsed)} parsed, {len(report['unparsed'])} unparsed, "
              f"{len(report['actions'])} actions, {len(protected)} entries left alone")
        return report


@pytest.mark.slow  # 15 cases of real processes: CI runs them with the other slow tests
@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_root_is_consolidated_without_harm(case: str, tmp_path: Path) -> None:
    builder, index_protected = CASES[case]
    hostile = Hostile(tmp_path / case)
    builder(hostile.root, hostile.outside)

    report = hostile.check(index_protected)

    ops = {a["op"] for a in report["actions"]}
    assert "merge" in ops, "the ordinary memories were not merged"


@pytest.mark.slow
def test_a_root_of_100000_tiny_files_is_consolidated_without_harm(tmp_path: Path) -> None:
    """Over a minute: 100 folders of 1,000 files, half tiny memories, half notes."""
    hostile = Hostile(tmp_path / "tiny")
    stamp = time.time() - 10 * DAY
    for d in range(100):
        folder = hostile.root / f"d{d:03d}"
        folder.mkdir()
        for i in range(1000):
            path = folder / f"n{i:04d}.md"
            path.write_bytes(b"x\n" if i % 2 else f"---\nname: n{d}_{i}\n---\n".encode())
            os.utime(path, (stamp, stamp))

    hostile.check(index_protected=False)


# --------------------------------------------------------------------------- found here


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_users_file_that_looks_like_a_temp_file_is_left_alone(tmp_path: Path) -> None:
    """Recovery used to unlink every ``.<x>.<8 chars>.tmp`` under the root, the user's too."""
    hostile = Hostile(tmp_path / "lookalike")
    put(hostile.root, ".notes.20261130.tmp", "the user's own notes\n", 30)
    put(hostile.root, "drafts/.draft.abcdefgh.tmp", "a draft\n", 30)

    hostile.check(index_protected=False)


@pytest.mark.slow  # a few seconds: CI runs it with the slow tests
def test_a_memory_with_an_empty_nested_value_does_not_crash_report_or_run(tmp_path: Path) -> None:
    """``metadata:\\n  type: `` (a trailing space) used to raise IndexError in the
    frontmatter reader: report and run died with a traceback."""
    hostile = Hostile(tmp_path / "empty-nested")
    put(hostile.root, "project_empty_type.md",
        "---\nname: project_empty_type\ndescription: d\nmetadata:\n  type: \n---\nBody.\n", 30)

    hostile.check(index_protected=False)


@pytest.mark.parametrize("name", ["new\nline.md", "tab\tname.md", "hash#x.md", "percent%20.md",
                                  "back\\slash.md"])
def test_the_index_points_at_a_memory_with_an_odd_name_once_and_correctly(
    name: str, tmp_path: Path
) -> None:
    """Pointers used to be written with the name as it is: a newline split the line, a tab
    ended the link, '#' became an anchor, '%xx' and '\\' were decoded on reading; each later
    run added another copy."""
    from consolidator.index.parse import parse_index

    hostile = Hostile(tmp_path / "odd")
    put(hostile.root, name, memory("odd", "A memory with an odd file name.\n"), 12)
    for _ in range(2):
        code, _out, err = consolidator(hostile.logs, "run", "--force", *hostile.common())
        assert code == 0, err

    lines = parse_index((hostile.root / INDEX).read_text(encoding="utf-8"))
    assert [line.target for line in lines if line.target == name] == [name]


# Not with the slow tests: the child's peak is read from wait4, and a child forked from a
# test process grown large by the 100,000-file test starts out that large.
def test_thousands_of_identical_memories_are_planned_in_memory_that_grows_linearly(
        tmp_path: Path) -> None:
    """2,000 copies of one tiny memory used to peak at about 700 MB (every pair of copies was
    held as a set); the plan now needs a few tens of MB. Peak RSS of the child, not time."""
    hostile = Hostile(tmp_path / "copies")
    for i in range(2000):
        put(hostile.root, f"copy_{i:04d}.md",
            f"---\nname: copy_{i}\ndescription: run the tests first\ntype: feedback\n---\n"
            "Always run the whole suite before pushing to main.\n", 10)
    hostile.logs.mkdir()
    out = hostile.logs / "out.json"
    with open(out, "wb") as so:
        proc = subprocess.Popen(
            [sys.executable, "-m", "consolidator", "report", "--format", "json",
             *hostile.common()], stdout=so, stderr=subprocess.DEVNULL, env=child_env(), cwd=REPO)
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0
    (cluster,) = [d for d in json.loads(out.read_text())["roots"][0]["duplicates"]
                  if len(d["files"]) > 2]
    assert len(cluster["files"]) == 2000
    peak_mb = usage.ru_maxrss // 1024  # KiB on Linux
    assert peak_mb < 250, f"peak {peak_mb} MB"
