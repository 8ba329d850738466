"""The tally's exact sums, against fractions: rank figures scaled to whole numbers, rows
packed side by side, many questions per row, cells summed into groups."""

from __future__ import annotations

import math
import os
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.records.outcome import Form
from retrieval_eval.scoring.ranks import figures, rank_names
from retrieval_eval.scoring.tally import Key, Tally, scaled_integers

EXAMPLES = int(os.environ.get("REVAL_FUZZ_EXAMPLES", "100"))
CASES = settings(max_examples=EXAMPLES, deadline=None, database=None,
                 derandomize=EXAMPLES <= 200)  # fmt: skip
KS = (1, 3, 5, 10)

finite = st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False)


@CASES
@given(st.lists(finite | st.sampled_from([0.0, 5e-324, 2.0**-1074 * 3, 1 / 3, 1.0]), max_size=30))
def test_scaled_integers_hold_each_value_exactly(values: list[float]) -> None:
    whole, shift = scaled_integers(values)
    assert len(whole) == len(values)
    for n, value in zip(whole, values, strict=True):
        assert isinstance(n, int) and n >= 0
        assert Fraction(n, 2**shift) == Fraction(value)


@st.composite
def answered_keys(draw: st.DrawFn) -> Key:
    total = draw(st.integers(1, 6))
    positions = tuple(sorted(draw(st.sets(st.integers(0, max(KS) - 1), max_size=total))))
    hits = tuple(bool(positions) and positions[0] < k for k in KS)
    return (hits, positions, total)


cells = st.tuples(st.sampled_from(list(Form)), st.sampled_from([None, "boilerplate", "x"]))


@CASES
@given(st.lists(st.tuples(cells, answered_keys(), st.integers(1, 40)), max_size=25))
def test_group_means_are_the_exact_sums_rounded_once(
    questions: list[tuple[tuple[Form, str | None], Key, int]],
) -> None:
    tally = Tally((), KS)
    for (form, hard_class), key, repeat in questions:
        for _ in range(repeat):
            tally.add(form, hard_class, key)

    def expected(group: list[tuple[Key, int]]) -> dict[str, float]:
        scored = sum(n for _, n in group)
        sums = [Fraction(0)] * (3 * len(KS))
        for (_, positions, total), n in group:
            assert positions is not None
            for i, value in enumerate(figures(positions, total, KS)):
                sums[i] += Fraction(value) * n
        names = rank_names(KS)
        return {name: float(exact) / scored for name, exact in zip(names, sums, strict=True)}

    def check(metrics_values: dict[str, float], group: list[tuple[Key, int]]) -> None:
        want = expected(group)
        assert {name: metrics_values[name] for name in want} == want
        # the same as math.fsum over the per-question values, divided by their number
        per_question = [figures(k[1] or (), k[2], KS) for k, n in group for _ in range(n)]
        for i, name in enumerate(rank_names(KS)):
            assert want[name] == math.fsum(f[i] for f in per_question) / len(per_question)

    if not questions:
        assert tally.overall().count == 0
        return
    check(dict(tally.overall().values), [(key, n) for _, key, n in questions])
    for label, metrics in tally.by_form().items():
        check(dict(metrics.values), [(k, n) for (f, _), k, n in questions if f.value == label])
    for name, metrics in tally.by_class().items():
        group = [(k, n) for (_, c), k, n in questions if (c or "unclassified") == name]
        check(dict(metrics.values), group)


def test_a_row_shared_by_many_questions_never_carries_into_the_next_column() -> None:
    """Columns packed side by side stay apart however many questions share a row."""
    tally = Tally((), KS)
    full: Key = ((True,) * len(KS), (0, 1, 2, 3), 4)  # every figure 1.0 at k >= 4
    for _ in range(70_000):
        tally.add(Form.MATCH, None, full)
    tally.add(Form.GAP, None, ((False,) * len(KS), (), 1))  # every figure 0
    overall = tally.overall()
    assert overall.count == 70_001
    for name in rank_names(KS):
        value = overall.values[name]
        assert value == math.fsum([dict(zip(rank_names(KS), figures((0, 1, 2, 3), 4, KS),
                                            strict=True))[name]] * 70_000) / 70_001  # fmt: skip
    assert tally.by_form()["GAP"].values["binary_ndcg@10"] == 0.0
    assert tally.by_form()["MATCH"].values["recall@10"] == 1.0
