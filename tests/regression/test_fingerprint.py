"""The benchmark fingerprint changes with what moves numbers, never with the variant."""

from __future__ import annotations

import dataclasses

import pytest
from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.regression.fingerprint import (
    benchmark_differences,
    benchmark_fingerprint,
    variant_fingerprint,
)

BASE = RetrieverDescription("dense", "1", chunk_separator="#", corpus_revision="c1")


def run_with(description=BASE, parameters=None, qs=None):
    return make_run("1301", description=description, parameters=parameters, qs=qs)


def test_same_benchmark_same_fingerprint():
    a, b = run_with(), make_run("0000", description=BASE)
    assert benchmark_fingerprint(a) == benchmark_fingerprint(b)
    assert benchmark_differences(a, b) == ()


@pytest.mark.parametrize(
    ("part", "changed"),
    [
        ("corpus", {"description": dataclasses.replace(BASE, corpus_revision="c2")}),
        ("parameters", {"parameters": RunParameters(overfetch=5, limit=15, doc_id_separator="#")}),
        (
            "parameters",
            {"parameters": RunParameters(ks=(1, 3, 10), limit=40, doc_id_separator="#")},
        ),
        ("protocol", {"parameters": RunParameters(doc_id_separator="#", protocol_version="2")}),
        ("labels", {"qs": question_set(4, forms=[Form.GAP] * 4)}),
    ],
)
def test_each_part_is_named_when_it_differs(part, changed):
    base, other = run_with(), run_with(**changed)
    assert benchmark_fingerprint(base) != benchmark_fingerprint(other)
    differences = benchmark_differences(other, base)
    assert [d.part for d in differences] == [part]
    assert "(current)" in str(differences[0]) and "(baseline)" in str(differences[0])


def test_variant_changes_keep_the_benchmark():
    other = dataclasses.replace(
        BASE, identifier="dense-v2", version="2", model_revision="m9", chunking="256",
        pipeline="rerank",
    )  # fmt: skip
    a, b = run_with(), run_with(description=other)
    assert benchmark_fingerprint(a) == benchmark_fingerprint(b)
    assert variant_fingerprint(a) != variant_fingerprint(b)


def test_a_chunked_and_an_unchunked_run_of_one_corpus_are_comparable():
    """Both are scored over the same documents: the separator is part of the variant."""
    unchunked = run_with(
        description=dataclasses.replace(BASE, chunk_separator=""),
        parameters=RunParameters(doc_id_separator=""),
    )
    assert benchmark_differences(unchunked, run_with()) == ()
    assert variant_fingerprint(unchunked) != variant_fingerprint(run_with())


def test_undeclared_corpus_reads_as_none():
    a = run_with(description=dataclasses.replace(BASE, corpus_revision=""))
    (line,) = benchmark_differences(a, run_with())
    assert str(line) == "corpus: (none declared) (current) vs 'c1' (baseline)"
