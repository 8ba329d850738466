"""How much two rankings agree, with or without labels: Jaccard and rank-biased overlap.

Both work on distinct document ids in rank order (the scoring protocol's rankings).

- Jaccard@k: |A ∩ B| / |A ∪ B| over the k best documents of each ranking; 1.0 when both
  are empty (two retrievers that agree there is nothing to return agree).
- RBO (Webber, Moffat and Zobel 2010, "A similarity measure for indefinite rankings"),
  the extrapolated form RBO_ext of their equation 32, which handles rankings of different
  lengths: agreement at each depth d is weighted by ``p ** (d - 1)``, so the persistence
  ``p`` says how far down a reader looks (p = 0.9 puts about 86% of the weight on the
  top 10). Identical rankings score 1.0, disjoint ones 0.0; two empty rankings 1.0 and
  one empty ranking against a non-empty one 0.0.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The persistence used unless told otherwise (weight mostly on the top 10).
DEFAULT_RBO_P = 0.9


def jaccard(a: Sequence[str], b: Sequence[str], k: int) -> float:
    """Jaccard similarity of the sets of the ``k`` best items of ``a`` and ``b``."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    top_a, top_b = set(a[:k]), set(b[:k])
    union = top_a | top_b
    return 1.0 if not union else len(top_a & top_b) / len(union)


def rbo(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_RBO_P) -> float:
    """Extrapolated rank-biased overlap of two rankings of distinct items."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"RBO persistence p must be in (0, 1), got {p}")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap = 0  # X_d: items common to both prefixes of depth d
    weighted = 0.0  # sum over d of X_d / d * p**d
    x_s = 0
    for d in range(1, ell + 1):
        item_l = long_[d - 1]
        if d <= s:
            item_s = short[d - 1]
            if item_s == item_l:
                overlap += 1
            else:
                overlap += (item_s in seen_long) + (item_l in seen_short)
            seen_short.add(item_s)
        elif item_l in seen_short:
            overlap += 1
        seen_long.add(item_l)
        if d == s:
            x_s = overlap
        weighted += overlap / d * p**d
        if d > s:
            # The short ranking is taken to continue with items agreeing at X_s / s.
            weighted += x_s * (d - s) / (s * d) * p**d
    x_l = overlap
    tail = ((x_l - x_s) / ell + x_s / s) * p**ell
    return (1 - p) / p * weighted + tail
