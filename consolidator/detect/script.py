"""The writing systems detect tells apart, as ranges to build regex character classes from.

Chinese, Japanese and Korean text has no spaces between words, so many detectors treat its
characters on their own; they all take the ranges from here, so that one class means one set
everywhere. Each constant is the inside of a class: write ``rf"[{HAN_KANA}]"``.

Compiling a class with a large range costs about a millisecond per 10,000 characters (Python's
regex compiler visits each one), and about three times that under ``re.IGNORECASE``, which
case-folds each. So: keep IGNORECASE off any pattern holding these ranges (scope it to the
ASCII words, ``(?i:done|closed)``), and write a large class as few times as a pattern allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

KANA = "\u3040-\u30ff"  # hiragana and katakana
HIRAGANA = "\u3040-\u309f"
KATAKANA = "\u30a0-\u30ff"
CJK_SYMBOLS = "\u3000-\u303f"  # the ideographic space, 、。「」 and the like
HAN = "\u3400-\u9fff"  # CJK ideographs: extension A to the unified block (hexagrams included)
HAN_BASIC = "\u4e00-\u9fff"  # the unified block alone
HAN_UNIFIED = "\u3400-\u4dbf" + HAN_BASIC  # extension A and the unified block, no hexagrams
HAN_COMPAT = "\uf900-\ufaff"  # CJK compatibility ideographs
HANGUL = "\uac00-\ud7af"  # Hangul syllables
HANGUL_JAMO = "\u1100-\u11ff\u3130-\u318f"  # Hangul letters, conjoining and compatibility
FULLWIDTH = "\uff01-\uff60"  # full-width ASCII forms and brackets

# Han and kana: the scripts written without spaces (text tokens, prose punctuation, values).
HAN_KANA = KANA + HAN_UNIFIED + HAN_COMPAT
# Every CJK letter, Hangul included: each is one token of a normal line.
CJK_LETTERS = HAN_KANA + HANGUL + HANGUL_JAMO
# Han, kana and Hangul syllables: what the character bigrams of words.py are made of.
BIGRAM_CHARS = KANA + HAN + HAN_COMPAT + HANGUL
# CJK writing that ends a value or a word written inline (secrets): CJK letters, Hangul and
# full-width forms; with the CJK symbols too, for what ends a bare word.
CJK_TEXT = KANA + HAN + HANGUL + FULLWIDTH
CJK_TEXT_AND_SYMBOLS = CJK_SYMBOLS + CJK_TEXT
# Kana, Han and Hangul: the scripts a claim's words are cut into characters in.
CJK_CLAIM = KANA + HAN + HANGUL


def lazy(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled on its first use, not at import: for one with a large class that
    only some texts reach (``_PATTERN = lazy(r"...")``, then ``_PATTERN().search(text)``)."""

    @cache
    def compiled() -> re.Pattern[str]:
        return re.compile(source, flags)

    return compiled
