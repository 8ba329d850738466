"""Fusion tuning: the search on hand-built rankings whose best weights are known, the folds,
and the whole command against real counting gRPC servers (each member asked once per
question, whatever the grid)."""

from __future__ import annotations

import threading
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from retrieval_eval.cli.main import cli
from retrieval_eval.errors import InputError, RetrieverInternal, UnknownNameError
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.config import load_config
from retrieval_eval.retrievers.fusion.methods import FusionMethod, FusionParams
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import serve
from retrieval_eval.tuning.crossval import cross_validate, stratified_folds
from retrieval_eval.tuning.grid import settings_grid, weight_vectors
from retrieval_eval.tuning.rankings import CachedRankings
from retrieval_eval.tuning.tune import TuneOptions, metric_k, score_grid, tune_fusion


def golden(n: int) -> GoldenQuestionSet:
    questions = tuple(
        GoldenQuestion(f"q{i}", f"question {i}", Form.MATCH if i % 2 else Form.GAP, (f"t{i}",))
        for i in range(n)
    )
    return GoldenQuestionSet("hand-built", questions)


def test_the_search_finds_the_weights_known_to_be_best() -> None:
    # Member "b" (first) puts a decoy at rank 1; member "a" puts the target at rank 1.
    # Equal weights tie at 1/61 and member order hands rank 1 to the decoy: a top-1 miss.
    # Every setting weighting a above b puts the target first: a hit on every question;
    # every setting weighting b above a misses every question.
    qs = golden(20)
    rankings = tuple((((f"decoy{i}", 9.0), ("x", 1.0)), ((f"t{i}", 0.5),)) for i in range(20))
    cached = CachedRankings(("b", "a"), rankings, (20, 20))
    fold_of = stratified_folds([q.form.value for q in qs.questions], 5, seed=0)
    result = score_grid(
        qs, cached, fold_of, TuneOptions(metric="top1_hit_rate"), limit=12, name="hybrid"
    )
    assert result.held_out.successes == 20 and result.held_out.count == 20
    # The first setting in grid order that weights a above b: rrf k=60 weights 0.5, 1.
    assert result.best == FusionParams(FusionMethod.RRF, 60, (0.5, 1.0))
    assert all(p.weights and p.weights[1] > p.weights[0] for p in result.fold_choices)
    by_name = {c.name: c for c in result.comparisons}
    assert by_name["b alone"].estimate.successes == 0
    assert by_name["a alone"].estimate.successes == 20
    assert by_name["plain rrf k=60"].estimate.successes == 0
    assert (by_name["plain rrf k=60"].wins, by_name["plain rrf k=60"].losses) == (20, 0)
    assert not by_name["plain rrf k=60"].within_noise
    assert by_name["a alone"].within_noise and by_name["a alone"].p_value == 1.0
    assert result.paste == (
        '[retrievers.hybrid]\nfuse = ["b", "a"]\nmethod = "rrf"\nk = 60\nweights = [0.5, 1]'
    )
    entry = load_config_text(result.paste)["hybrid"]
    assert entry.params == result.best  # type: ignore[union-attr]


def test_mirrored_case_picks_the_mirrored_weights() -> None:
    qs = golden(20)
    rankings = tuple((((f"t{i}", 1.0),), ((f"decoy{i}", 2.0),)) for i in range(20))
    cached = CachedRankings(("a", "b"), rankings, (20, 20))
    fold_of = stratified_folds([q.form.value for q in qs.questions], 4, seed=3)
    result = score_grid(qs, cached, fold_of, TuneOptions(), limit=12, name="h")
    # Equal weights already win here (member order): plain RRF is kept, nothing gained.
    assert result.best == FusionParams()
    assert result.comparisons[-1].wins == result.comparisons[-1].losses == 0


def load_config_text(text: str, tmp: Path | None = None) -> dict[str, object]:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "reval.toml"
        path.write_text(text)
        return dict(load_config(path))


def test_combsum_is_left_out_when_scores_are_missing() -> None:
    qs = golden(4)
    rankings = tuple((((f"t{i}", None),), ((f"t{i}", 1.0),)) for i in range(4))
    cached = CachedRankings(("a", "b"), rankings, (4, 4))
    result = score_grid(qs, cached, [0, 1, 0, 1], TuneOptions(), limit=12, name="h")
    assert result.notes == (
        "some results carry no finite score: combsum and combmnz were not tried",
    )
    assert result.grid_size == len([s for s in settings_grid(2) if s.method == "rrf"])


def test_folds_are_stratified_by_form_seeded_and_balanced() -> None:
    strata = ["MATCH"] * 13 + ["GAP"] * 10
    folds = stratified_folds(strata, 5, seed=7)
    assert folds == stratified_folds(strata, 5, seed=7)
    assert folds != stratified_folds(strata, 5, seed=8)
    sizes = Counter(folds)
    assert sorted(sizes.values()) == [4, 4, 5, 5, 5]
    for form in ("MATCH", "GAP"):
        per_fold = Counter(f for f, s in zip(folds, strata, strict=True) if s == form)
        assert max(per_fold.values()) - min(per_fold.values()) <= 1
    with pytest.raises(InputError, match="at least 2"):
        stratified_folds(strata, 1, seed=0)
    with pytest.raises(InputError, match="more than the set's 23 questions"):
        stratified_folds(strata, 24, seed=0)


def test_cross_validation_never_scores_a_question_with_a_setting_chosen_on_it() -> None:
    # Setting 1 is right only on questions 0 and 1, which share fold 0; trained without
    # fold 0, the search cannot see that, so question 0 and 1 are scored by setting 0.
    hits = [[False, False, True, True], [True, True, False, False]]
    cv = cross_validate(hits, [0, 0, 1, 1])
    assert cv.chosen == (0, 1)
    assert cv.held_out == (False, False, False, False)


def test_grid_starts_with_plain_rrf_and_keeps_weights_up_to_scale() -> None:
    assert weight_vectors(2, (1.0, 2.0)) == [(1.0, 1.0), (0.5, 1.0), (1.0, 0.5)]
    grid = settings_grid(2, rrf_ks=(60, 10), weight_levels=(1.0, 2.0))
    assert grid[0] == FusionParams()
    assert len(grid) == len(set(grid)) == 2 * 3 + 3 + 3


@pytest.mark.parametrize("metric", ["binary_ndcg@10", "top0_hit_rate", "hit_rate@x"])
def test_metric_must_be_a_hit_rate(metric: str) -> None:
    with pytest.raises(InputError, match="tuning scores a hit rate"):
        metric_k(metric)
    assert metric_k("hit_rate@5") == 5 and metric_k("top1_hit_rate") == 1


class Counting:
    """Answers a fixed ranking per question and counts every call it gets."""

    def __init__(self, name: str, answers: dict[str, list[str]]) -> None:
        self.name, self.answers, self.calls = name, answers, Counter[str]()
        self._lock = threading.Lock()

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        with self._lock:
            self.calls[question] += 1
        if self.answers.get(question) == ["FAIL"]:
            raise RuntimeError("index offline")
        ids = self.answers.get(question, [])[:limit]
        return [RetrievedItem(d, float(len(ids) - r)) for r, d in enumerate(ids)]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.name, "1")


@pytest.fixture
def counting_pair(tmp_path: Path):
    qs = golden(10)
    a = Counting("a", {f"question {i}": [f"t{i}", "x"] for i in range(0, 10, 2)})
    b = Counting("b", {f"question {i}": ["y", f"t{i}"] for i in range(10)})
    handles = [serve(a), serve(b)]
    config = tmp_path / "reval.toml"
    config.write_text(
        f'[retrievers.ra]\naddress = "grpc://{handles[0].address}"\n'
        f'[retrievers.rb]\naddress = "grpc://{handles[1].address}"\n'
        '[retrievers.hybrid]\nfuse = ["ra", "rb"]\non_member_error = "skip"\n'
    )
    yield qs, a, b, config
    for h in handles:
        h.stop(grace=None)


def test_each_member_is_asked_once_per_question(counting_pair) -> None:
    qs, a, b, config = counting_pair
    result = tune_fusion(qs, "hybrid", TuneOptions(folds=2), config_path=config)
    assert result.grid_size > 50
    assert result.calls == (10, 10)
    for server in (a, b):
        assert sorted(server.calls) == sorted(q.question for q in qs.questions)
        assert set(server.calls.values()) == {1}
    assert 'on_member_error = "skip"' in result.paste


def test_cli_prints_the_comparison_and_a_block_that_loads(counting_pair, tmp_path: Path) -> None:
    qs, _, _, config = counting_pair
    set_file = tmp_path / "set.yaml"
    import yaml

    set_file.write_text(
        yaml.safe_dump(
            {
                "name": qs.name,
                "questions": [
                    {
                        "id": q.id,
                        "question": q.question,
                        "form": q.form.value,
                        "expected_document_ids": list(q.expected_document_ids),
                    }
                    for q in qs.questions
                ],
            }
        )
    )
    result = CliRunner().invoke(
        cli,
        [
            "fusion",
            "tune",
            "hybrid",
            "--set",
            str(set_file),
            "--folds",
            "2",
            "--config",
            str(config),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "tuned (held-out)" in out and "ra alone" in out and "plain rrf k=60" in out
    # rb alone finds every target in its top 3: no tuned setting can beat it, so none is
    # recommended.
    assert "no setting recommended: the tuned held-out" in out
    assert "does not beat rb alone (1.000); keep what is in reval.toml" in out
    assert "paste into reval.toml" not in out


def test_a_setting_is_recommended_only_when_it_beats_every_reference(counting_pair) -> None:
    import dataclasses

    from retrieval_eval.report.tuning import tuning_text, tuning_to_dict

    qs, _, _, config = counting_pair
    result = tune_fusion(qs, "hybrid", TuneOptions(folds=2), config_path=config)
    assert not result.recommended and tuning_to_dict(result)["paste"] is None
    best = max(c.estimate.rate for c in result.comparisons)
    # The same result with a held-out figure above, equal to, and below the best reference.
    for rate, expected in ((best + 0.01, True), (best, False), (best - 0.01, False)):
        held_out = dataclasses.replace(result.held_out, rate=rate)
        tuned = dataclasses.replace(result, held_out=held_out)
        assert tuned.recommended is expected
        text = tuning_text(tuned)
        assert ("paste into reval.toml:" in text) is expected
        if expected:
            block = text.split("paste into reval.toml:\n\n", 1)[1]
            assert tomllib.loads(block)["retrievers"]["hybrid"]["fuse"] == ["ra", "rb"]


def test_a_failing_member_stops_the_tuning_naming_member_and_question(
    counting_pair,
) -> None:
    qs, _, b, config = counting_pair
    b.answers["question 3"] = ["FAIL"]
    with pytest.raises(RetrieverInternal, match=r"question q3: member rb: .*index offline"):
        tune_fusion(qs, "hybrid", TuneOptions(folds=2), config_path=config)


def test_only_a_fusion_can_be_tuned(counting_pair) -> None:
    qs, _, _, config = counting_pair
    with pytest.raises(InputError, match=r"\[retrievers.ra\] is not a fusion"):
        tune_fusion(qs, "ra", config_path=config)
    with pytest.raises(UnknownNameError, match="unknown fusion 'hybird'; did you mean 'hybrid'"):
        tune_fusion(qs, "hybird", config_path=config)


def test_json_output_carries_the_figures(counting_pair, tmp_path: Path) -> None:
    import json

    import yaml

    qs, _, _, config = counting_pair
    set_file = tmp_path / "set.yaml"
    set_file.write_text(
        yaml.safe_dump(
            {
                "name": qs.name,
                "questions": [
                    {
                        "id": q.id,
                        "question": q.question,
                        "form": q.form.value,
                        "expected_document_ids": list(q.expected_document_ids),
                    }
                    for q in qs.questions
                ],
            }
        )
    )
    args = ["fusion", "tune", "hybrid", "--set", str(set_file), "--config", str(config)]
    result = CliRunner().invoke(cli, [*args, "--folds", "2", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["calls"] == {"ra": 10, "rb": 10}
    assert data["held_out"]["count"] == 10 and len(data["fold_choices"]) == 2
    assert [c["name"] for c in data["comparisons"]] == ["ra alone", "rb alone", "plain rrf k=60"]
    # rb puts the target second on every question, ra first on half: rb alone hits all
    # ten at top-3, as does every fusion of the two.
    assert data["comparisons"][1]["hits"] == 10 and data["held_out"]["hits"] == 10
    bad = CliRunner().invoke(cli, [*args, "--metric", "binary_ndcg@10"])
    assert isinstance(bad.exception, InputError)  # exit 2 through reval's main
    assert "tuning scores a hit rate" in str(bad.exception)
