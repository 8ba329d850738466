"""Runs shown side by side are named by what differs between them."""

from __future__ import annotations

from retrieval_eval.report.fit_table import Column, Drop, Shorten, fit
from retrieval_eval.report.run_names import letter, run_names

BIG = "bm25 0.1.0 · chunking words=150 · bm25:/tmp/x/big"
SMALL = "bm25 0.1.0 · chunking words=60 · bm25:/tmp/x/small"


def test_variants_get_letters_and_their_own_build_parts():
    names = run_names([("r1", BIG, "bm25:/tmp/x/big", {}), ("r2", SMALL, "bm25:/tmp/x/small", {}),
                       ("r3", BIG, "bm25:/tmp/x/big", {})])  # fmt: skip
    assert [n.letter for n in names] == ["A", "B", "A2"]  # a variant's second run
    assert [n.short for n in names] == [
        "A · chunking words=150", "B · chunking words=60", "A2 · chunking words=150"
    ]  # fmt: skip
    assert names[1].differs == "chunking words=60 · bm25:/tmp/x/small"
    assert [n.run_id for n in names] == ["r1", "r2", "r3"]


def test_a_place_alone_is_cut_to_its_last_segment_and_same_variants_are_letters():
    a = "bm25 0.1.0 · bm25:/data/indexes/pages"
    b = "bm25 0.1.0 · bm25:/data/indexes/chunks"
    names = run_names([("r1", a, "bm25:/data/indexes/pages", {}),
                       ("r2", b, "bm25:/data/indexes/chunks", {})])  # fmt: skip
    assert [n.short for n in names] == ["A · …/pages", "B · …/chunks"]
    same = run_names([("r1", a, "t", {}), ("r2", a, "t", {})])
    assert [n.short for n in same] == ["A", "A2"]


def test_a_name_the_user_gave_wins():
    names = run_names([("r1", BIG, "prod", {}), ("r2", SMALL, "grpc://h:1", {"name": "small"}),
                       ("r3", BIG, "bm25:/tmp/x/big", {})])  # fmt: skip
    assert [n.tag for n in names] == ["prod", "small", "A2"]  # reval.toml name, --label name=


def test_letters_go_on_after_z():
    assert [letter(i) for i in (0, 25, 26, 27, 701, 702)] == ["A", "Z", "AA", "AB", "ZZ", "AAA"]


def test_fit_applies_the_stated_steps_in_order_until_the_table_fits():
    columns = [Column("id"), Column("when"), Column("notes", wrap=True), Column("n", "right")]
    rows = [["abcdefgh", "2026-11-30 09:00:00", "a b c", "3"]]
    steps = [Shorten("when", lambda t: t[5:16], header="at"), Drop("notes"), Drop("n")]
    assert fit(columns, rows, 80, steps) == (columns, rows)
    cols, body = fit(columns, rows, 36, steps)  # the shortened date is enough
    assert [c.name for c in cols] == ["id", "at", "notes", "n"]
    assert body == [["abcdefgh", "11-30 09:00", "a b c", "3"]]
    cols, body = fit(columns, rows, 26, steps)
    assert [c.name for c in cols] == ["id", "at", "n"] and body == [
        ["abcdefgh", "11-30 09:00", "3"]
    ]
    cols, _ = fit(columns, rows, 5, steps)  # never narrower than its one-line cells
    assert [c.name for c in cols] == ["id", "at"]


def test_variants_are_named_by_lineage_and_letter_and_the_user_name_wins():
    from retrieval_eval.report.variant_names import ShownVariant, name_variants

    dense_256 = "dense 0.1 · model wordllama:l2@64b dims=256 · dense:swap"
    dense_64 = "dense 0.1 · model wordllama:l2@64b dims=64 · dense:swap"
    shown = [  # oldest first
        ShownVariant("big", BIG, "bm25", "bm25:/tmp/x/big", {}),
        ShownVariant("d256", dense_256, "dense", "dense:swap", {}),
        ShownVariant("small", SMALL, "bm25", "bm25:/tmp/x/small", {}),
        ShownVariant("d64", dense_64, "dense", "dense:swap", {"name": "quarter"}),
        ShownVariant("prod", "search 2", "search", "prod", {}),  # a reval.toml name
    ]
    names = name_variants(shown)
    assert {k: n.name for k, n in names.items()} == {
        "big": "bm25-A", "small": "bm25-B", "d256": "dense-A", "d64": "quarter",
        "prod": "prod-A",
    }  # fmt: skip
    # only what differs within a lineage name, words shared by the same kind of part elided
    assert names["big"].differs == ("chunking words=150", "bm25:/tmp/x/big")
    assert names["d64"].differs == ("model … dims=64",)
    assert names["prod"].differs == ()


def test_legend_lines_wrap_at_spaces_and_never_split_a_path():
    from retrieval_eval.report.variant_names import VariantName, legend_lines

    path = "bm25:/" + "/".join(["directory"] * 7) + "/big-chunks"  # 86 characters
    lines = legend_lines([VariantName("bm25-A", ("chunking words=150", path)),
                          VariantName("bm25-B", ())], 60)  # fmt: skip
    assert lines == ["  bm25-A  chunking words=150 ·", path]  # the path alone, whole
    lines = legend_lines([VariantName("A", ("one two three four five six",))], 20)
    assert lines == ["  A  one two three", "     four five six"]
    assert all(len(line) <= 20 for line in lines)


def test_a_part_only_some_variants_have_is_shown_whole():
    from retrieval_eval.report.run_names import differing_parts

    chunked = "bm25 0.1 · chunking words=150 · bm25 (grpc://h:1)"
    fused = "rrf(bm25, dense) · hybrid"
    also = "dense 0.1 · chunking words=150 · dense (grpc://h:2)"
    differs = differing_parts([chunked, fused, also])
    assert differs[0] == ("bm25 0.1", "chunking words=150", "bm25 (grpc://h:1)")
    assert differs[1] == ("rrf(bm25, dense)", "hybrid")
