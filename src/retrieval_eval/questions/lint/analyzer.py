"""Text analysis for label checks, equivalent to the reference BM25 plugin's analyzer.

The plugin analyzes with tantivy (simple tokenizer, tokens of 40+ bytes removed,
lowercase, Snowball's English stop words, Snowball's English stemmer); the core cannot
depend on the plugin, so this module does the same with the Snowball stemmer's C build
(PyStemmer).
A test checks that both give the same terms on the example corpus and on SciFact.

Tokens are runs of Unicode letters and digits; everything else separates them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import filterfalse
from typing import Any

#: Tokens of this many UTF-8 bytes or more are dropped (as tantivy's ``remove_long(40)``).
MAX_TOKEN_BYTES = 40
_TOKEN = re.compile(r"[^\W_]+")

#: The English stop words of tantivy's ``Filter.stopword("english")`` (Lucene's classic
#: list): the few words too common to say anything about a match.
ENGLISH_STOP_WORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the
    their then there these they this to was will with
    """.split()  # noqa: SIM905
)

#: Function words a question is phrased with ("what", "how", "my", "can") that say nothing
#: about sharing the target's vocabulary: Snowball's English stop words without apostrophe
#: and the contraction fragments the tokenizer splits off ("don", "t"), as in NLTK's English
#: list. Only the overlap measure drops them, from the question side.
FUNCTION_WORDS = ENGLISH_STOP_WORDS | frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself its itself them theirs themselves what which who whom
    those am were been being have has had having do does did doing would should could
    ought because until while about against between through during before after above
    below from up down out off over under again further once here when where why how all
    any both each few more most other some nor only own same so than too very s t can
    just don now d ll m o re ve y
    """.split()  # noqa: SIM905
)


def tokens(text: str) -> list[str]:
    """Lowercased tokens, long ones dropped (no stop words removed, nothing stemmed)."""
    found: list[str] = _TOKEN.findall(text.lower())
    longest = max(map(len, found), default=0)
    if longest < MAX_TOKEN_BYTES and (text.isascii() or longest * 4 < MAX_TOKEN_BYTES):
        return found  # no token can reach the limit (the common case, checked in C)
    return [t for t in found if len(t.encode("utf-8")) < MAX_TOKEN_BYTES]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    # the stemmer (the lint extra) only when a lint stems
    import Stemmer  # PyStemmer, from the ``lint`` extra

    return Stemmer.Stemmer("english")


class TermAnalyzer:
    """Tokens -> stemmed terms without stop words, with a per-word cache (a corpus has far
    fewer distinct words than words, and stemming is the costly step)."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def term(self, token: str) -> str | None:
        """The term of one lowercased token; ``None`` for a stop word."""
        if token in self._cache:
            return self._cache[token]
        term = None if token in ENGLISH_STOP_WORDS else _stemmer().stemWord(token)
        self._cache[token] = term
        return term

    def terms(self, text: str, drop: frozenset[str] = frozenset()) -> list[str]:
        """Every term of ``text`` in order (repeats kept), skipping tokens in ``drop``."""
        out = []
        for token in tokens(text):
            term = None if token in drop else self.term(token)
            if term is not None:
                out.append(term)
        return out

    def term_set(self, distinct_tokens: set[str]) -> set[str]:
        """Distinct terms of distinct tokens (the fast path for whole corpora)."""
        cache = self._cache
        for token in list(filterfalse(cache.__contains__, distinct_tokens)):
            self.term(token)
        found = set(map(cache.__getitem__, distinct_tokens))
        found.discard(None)
        return found  # type: ignore[return-value]
