"""The inverted-index near-duplicate search equals brute-force Jaccard over shingle sets."""

from __future__ import annotations

import random

import numpy as np

from retrieval_eval.questions.lint.shingles import shingle_index


def python_shingles(words: list[int]) -> set[tuple[int, ...]]:
    if len(words) < 3:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def test_near_duplicates_equal_brute_force() -> None:
    rng = random.Random(3)
    docs = [[rng.randrange(40) for _ in range(rng.randint(0, 30))] for _ in range(120)]
    for i in range(20):  # edited copies
        copy = list(docs[i])
        for j in rng.sample(range(len(copy)), len(copy) // 5) if copy else []:
            copy[j] = rng.randrange(40)
        docs.append(copy)
    flat = np.array([w for d in docs for w in d], dtype=np.int64)
    index = shingle_index(flat, np.array([len(d) for d in docs]), drop_boilerplate=False)
    expected_sets = [python_shingles(d) for d in docs]
    assert index.sizes.tolist() == [len(s) for s in expected_sets]
    targets = list(range(0, len(docs), 3))
    got = index.similar(targets, 0.3, batch=7)
    for t in targets:
        want = []
        for o, other in enumerate(expected_sets):
            a = expected_sets[t]
            if o != t and a and other:
                j = len(a & other) / len(a | other)
                if j >= 0.3:
                    want.append((o, j))
        want.sort(key=lambda p: (-p[1], p[0]))
        assert [o for o, _ in got[t]] == [o for o, _ in want]
        assert [s for _, s in got[t]] == [s for _, s in want]


def test_boilerplate_shingles_are_dropped() -> None:
    footer = [1, 2, 3, 4, 5]
    docs = [[100 + 10 * i, 101 + 10 * i, 102 + 10 * i, *footer] for i in range(30)]
    flat = np.array([w for d in docs for w in d], dtype=np.int64)
    lengths = np.array([len(d) for d in docs])
    everything = shingle_index(flat, lengths, drop_boilerplate=False)
    assert everything.jaccard(0, 1) > 0.3  # the footer makes unrelated pages alike
    cleaned = shingle_index(flat, lengths)
    assert cleaned.jaccard(0, 1) == 0.0
    assert not cleaned.similar([0], 0.1)[0]
