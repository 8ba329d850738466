"""What "blank" means, once, for every text reval passes to a retriever or reads as one.

The retriever contract (questions, document ids, the Describe identifier) and the question
sets that feed it judge by the same rule, so that a set that validates never holds a
question the contract refuses, nor refuses one it accepts. Blank is empty or made only of
characters with Unicode's White_Space property (PropList.txt), the set Go's
``unicode.IsSpace`` tests, and the set the ``.proto`` lists. Not ``str.isspace`` or
``str.strip()`` (which also count U+001C..U+001F), JavaScript's ``trim()`` (U+FEFF, not
U+0085) or Java's ``isBlank()`` (U+001C..U+001F, not U+0085, U+00A0, U+2007, U+202F).
"""

from __future__ import annotations

#: The characters with Unicode's White_Space property.
WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def is_blank(text: str) -> bool:
    """Empty, or only ``WHITE_SPACE``: the one rule for questions and ids."""
    return not text.strip(WHITE_SPACE)
