"""A memory that says it replaces another: the other is reported as superseded.

The evidence is a sentence of the newer memory whose verb of replacing governs a reference to
another memory of the store: a link, a ``[[name]]``, or the other's file name or file stem
written out ("supersedes [[deploy-notes]]", "sustituye a pendientes_1709", "取代
`plan_v1.md`", "`plan_v1.md` を置き換える"). It is a statement in words, so it is reported with
its sentence and never archived. It counts only where the saying memory is not older than the
one it names (a memory rewritten after it was said to be replaced may hold news), where the
verb is not negated or limited to a part ("does not replace", "partly replaces"), and where
the two memories do not each say they replace the other.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

from consolidator.detect.links import name_table
from consolidator.detect.scope import outline
from consolidator.store.links import link_matches, resolve_link, wiki_matches
from consolidator.store.model import Memory

# Verbs of replacing whose object follows them, in the present (a past "replaced" is mostly
# about code or data: "replaced the JSON response"). The languages with this word order.
_VERB_FIRST = re.compile(
    r"(?:(?<!\w)(?:supersedes|replaces|obsoletes|sustituye|reemplaza|remplace|ersetzt"
    r"|sostituisce|substitui|заменяет|zastępuje|vervangt|nahrazuje|menggantikan"
    r"|thay thế cho|thay thế)(?!\w)"
    r"|取代|替代|代替)",
    re.IGNORECASE,
)
# Object-first languages: the reference, the particle marking it as what is replaced, then the
# verb ("A を置き換える", "A に代わる", "A 를 대체"; not "B に置き換える", replaced with B;
# Turkish "A'nın yerine geçer", "[[a]] notunun yerine geçer", takes the place of A).
_VERB_AFTER = re.compile(r"[`'\"”»」』)\]]*\s*(?:を\s*(?:置き換え|置換)|に\s*代わ|[을를]\s*대체"
                         r"|(?:['’]?[a-zçğıöşü]{1,5})?(?:\s+[^\W\d_]{1,12})?\s+yerine\s+geç)",
                         re.IGNORECASE)
_ANY_VERB = re.compile(rf"{_VERB_FIRST.pattern}|置き換え|置換|代わ|대체|yerine geç", re.IGNORECASE)
# What may stand between the verb and the reference: an article, a preposition, "the old".
_GAP = re.compile(r"[\s:]*(?:[^\s.,;!?。！？，、]+\s+){0,3}?[\s(\"'`«“„「]*$")
GAP_CHARS = 24
_NEGATED = re.compile(
    r"n't|(?<!\w)(?:not|never|no|ne|pas|nicht|kein\w*|non|não|nao|не|nie|niet|ani)(?!\w)"
    r"|不|没|沒|未|ない|않",
    re.IGNORECASE,
)
# A replacing limited to a part, or to a while ("for now", "in this phase"): the memory named
# still holds the rest, or holds again later.
_LIMITED = re.compile(
    r"(?<!\w)(?:part\w*|partial\w*|en parte|teilweise|parzialmente|parcialmente|частично"
    r"|częściowo|gedeeltelijk|částečně|temporar\w*|temporal\w*|tempor[áa]ri\w*|provisional\w*"
    r"|provisoire\w*|for now|for the moment|por ahora|por enquanto|pour l'instant"
    r"|pour le moment|vorerst|vorläufig|per ora|пока|временно|fase|phase\w*"
    # ... or to a case: "for polity branches specifically", "only for", "still holds"
    r"|specifically|only|solely|still holds?|still applies|sólo|solo|solamente|únicamente"
    r"|apenas|somente|nur|seulement|uniquement|soltanto|только|wyłącznie|pouze)(?!\w)"
    r"|部分|一部|暂时|暫時|一時|임시|당분간|仅|僅|只|のみ|だけ",
    re.IGNORECASE,
)
# ... or to a case named right after the references: "supersedes [[a]] and [[b]] for
# MasterVP", "ersetzt [[a]] für `ios/`" (a preposition of purpose, then a name or code).
_SCOPED = re.compile(r"(?:[\s,]*(?:(?:and|&|y|und|et|e|и)\s+)?(?:\[\[[^\]\n]*\]\]"
                     r"|\[[^\]\n]*\]\([^)\n]*\)|`[^`\n]*`|[\w.-]+\.md))*[*_)\s]*"
                     r"(?:for|para|pour|für|voor|для|dla)\s+(?:the\s+)?(?:`|[A-ZÀ-ÝА-Я])")
_PASSIVE = re.compile(r"被|(?<!\w)(?:by|par|por|durch|da|door|przez)(?!\w)", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?]\s|[。！？，、；]")
_BARE = re.compile(r"[\w.-]+")  # a file name or stem written out
_ID_LIKE = re.compile(r".*[_\d-].*")  # a stem that cannot be an ordinary word
MAX_REFERENCES = 32  # references weighed per line
WRAPPED = 3  # lines a hard-wrapped sentence is followed into
_CONTINUES = re.compile(r"[a-z(—–\[`\"'«“]")  # a line going on with the sentence above it
_SENTENCE_ENDS = (".", "!", "?", ":", "。", "！", "？", "：")


@dataclass(frozen=True, slots=True)
class Replaced:
    """``file`` is said to be replaced by ``by``, in the sentence ``line``."""

    file: str
    by: str
    line: str


def find_replaced(memories: Sequence[Memory]) -> dict[str, list[Replaced]]:
    """Each memory another says it replaces -> those statements (see the module's doc)."""
    saying = [(memory, lines) for memory in memories
              if _ANY_VERB.search(memory.body) or _ANY_VERB.search(memory.description)
              # most memories say nothing of the kind: one scan each
              for lines in [[line for line in _lines(memory) if _ANY_VERB.search(line)]]
              if lines]
    if not saying:
        return {}
    names = name_table(list(memories))
    stems = _stems(memories)
    by_file = {m.file: m for m in memories}
    said: dict[tuple[str, str], str] = {}  # (replaced, by) -> the sentence
    for memory, lines in saying:
        for line in lines:
            for target in _named(line, memory, names, stems, by_file):
                said.setdefault((target, memory.file), line)
    out: dict[str, list[Replaced]] = {}
    for (target, by), line in said.items():
        if (by, target) in said:  # each says it replaces the other: no telling
            continue
        if by_file[by].written_ns < by_file[target].written_ns:
            continue  # rewritten since it was said to be replaced
        out.setdefault(target, []).append(Replaced(target, by, line))
    return out


def _stems(memories: Iterable[Memory]) -> dict[str, str]:
    """File names and identifier-like file stems, as written out in a sentence -> file."""
    out: dict[str, str] = {}
    for memory in memories:
        base = posixpath.basename(memory.file)
        out[base] = memory.file
        if _ID_LIKE.fullmatch(memory.stem):
            out[memory.stem] = memory.file
    return out


def _lines(memory: Memory) -> Iterable[str]:
    """The memory's description and its lines of prose (a code block names code), each with
    the lines a hard-wrapped sentence goes on to (what follows "supersedes [[x]] for" says
    for what)."""
    if memory.description:
        yield memory.description
    lines = [line for line in outline(memory.body) if line.kind != "code"]
    for at, line in enumerate(lines):
        text = line.text
        for after in lines[at + 1:at + 1 + WRAPPED]:
            if after.number != line.number + len(text.split("\n")) \
                    or text.rstrip("*_ ").endswith(_SENTENCE_ENDS) \
                    or _CONTINUES.match(after.text) is None:
                break
            text += "\n" + after.text
        yield text.replace("\n", " ")


def _named(line: str, memory: Memory, names: Mapping[str, Memory],
           stems: Mapping[str, str], files: Container[str]) -> set[str]:
    """The other memories (of ``files``) ``line`` says ``memory`` replaces."""
    folder = posixpath.dirname(memory.file)
    spans: list[tuple[int, int, str]] = []
    for match in link_matches(line):
        target = resolve_link(match.group(2), folder)
        if target:
            spans.append((match.start(), match.end(), target))
    for match in wiki_matches(line):
        named = names.get(match.group(1).strip())
        if named is not None:
            spans.append((match.start(), match.end(), named.file))
    linked = sorted(spans)
    starts = [start for start, _end, _t in linked]
    for match in _BARE.finditer(line):
        target = stems.get(match.group(0).removesuffix("."))
        at = bisect.bisect_right(starts, match.start()) - 1  # the link it may stand in
        if target and not (at >= 0 and match.start() < linked[at][1]):
            spans.append((match.start(), match.end(), target))
    # A sentence names a few memories; a dump naming thousands is read no further (each is
    # weighed against the whole clause before it: the cap keeps this linear).
    return {target for start, end, target in sorted(spans)[:MAX_REFERENCES]
            if target != memory.file and target in files
            and _governed(line, start, end)}


def _governed(line: str, start: int, end: int) -> bool:
    """Whether the reference at ``line[start:end]`` is the object of a verb of replacing,
    not negated, not limited to a part, a while or a case ("for MasterVP"), and not set off
    from it by a comma (an aside between the two qualifies the replacing: "replaces, in this
    phase, the …")."""
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(line, 0, start)), default=0)
    clause_end = next((m.start() for m in _CLAUSE_END.finditer(line, end)), len(line))
    before, after = line[clause_start:start], line[end:clause_end]
    for verb in _VERB_FIRST.finditer(before):
        gap = before[verb.end():]
        said = before[max(0, verb.start() - 16):verb.start()] + gap
        if len(gap) <= GAP_CHARS and _GAP.fullmatch(gap) and not _NEGATED.search(said) \
                and not _PASSIVE.search(said) and not _LIMITED.search(said + after) \
                and not _SCOPED.match(after):
            return True
    verb_after = _VERB_AFTER.match(line, end)
    if verb_after:
        rest = line[verb_after.end():verb_after.end() + 12]
        return not _NEGATED.search(rest) and not _LIMITED.search(before + after)
    return False
