"""The draft set ``sets generate`` writes: the labelling format of ``sets draft``, with
how it was generated in its header and in every question."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from retrieval_eval.labelling.document import require_yaml, write_document
from retrieval_eval.labelling.llm.budget import Spend
from retrieval_eval.labelling.llm.generate import GenerateOptions, GenerateReport, label_source
from retrieval_eval.labelling.llm.prompts import PromptTemplate
from retrieval_eval.labelling.snippet import best_passage
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.formats import FORMAT_VERSION, HEADER_KEY, stem_name
from retrieval_eval.questions.labelling import GENERATED_KEY, LABELLING_KEY, JudgementState


def _flow(values: Mapping[str, Any]) -> CommentedMap:
    mapping = CommentedMap(values)
    mapping.fa.set_flow_style()
    return mapping


def _claim(source: str, at: str, document_id: str) -> CommentedMap:
    """The generator's own claim, as a judgement by its source: its document answers the
    question it wrote (advice, like any model grade, until accepted)."""
    entry = CommentedMap()
    entry["by"] = source
    entry["at"] = at
    entry["relevant"] = _seq([document_id])
    entry["not_relevant"] = _seq([])
    entry["nothing_answers"] = False
    entry["grades"] = _flow({document_id: 1})
    entry.fa.set_flow_style()
    return entry


def _seq(items: list[str]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def write_generated(
    report: GenerateReport,
    options: GenerateOptions,
    template: PromptTemplate,
    corpus: Path,
    out: Path,
    spend: Spend,
    *,
    name: str | None = None,
) -> None:
    require_yaml(out)
    source = label_source(options.model, template)
    document = CommentedMap()
    document[HEADER_KEY] = FORMAT_VERSION
    document["name"] = name or stem_name(out)
    document["description"] = (
        f"{len(report.questions)} questions drafted by {source} from {report.documents} "
        "sampled documents; judge before use."
    )
    header = CommentedMap()
    header["by"] = source
    header["model"] = options.model
    header["prompt"] = _flow(
        {"name": template.name, "version": template.version, "digest": template.digest}
    )
    header["corpus"] = str(corpus)
    header["sample"] = options.sample
    header["seed"] = options.seed
    header["strata"] = (
        _flow({"key": options.strata, "documents": report.strata}) if options.strata else None
    )
    header["asked"] = _flow({"MATCH": options.match, "GAP": options.gap})
    header["form_check"] = _flow({
        "cutoff": options.cutoff,
        "on_mismatch": options.on_mismatch,
        "relabelled": report.relabelled,
        "dropped_mismatch": report.dropped_mismatch,
        "dropped_duplicates": report.dropped_duplicates,
    })  # fmt: skip
    header["failures"] = _flow(dict(sorted(report.failures.items())))
    header["requests"] = _flow(
        {"sent": spend.requests, "cached": spend.cached, "not_asked": report.not_asked}
    )
    document[GENERATED_KEY] = header
    items = CommentedSeq()
    for q in report.questions:
        item = CommentedMap()
        item["id"] = q.id
        item["question"] = q.question
        item["form"] = q.form.value
        expected = CommentedSeq([q.document.id])
        expected.fa.set_flow_style()
        item["expected_document_ids"] = expected
        item[DIGESTS_KEY] = _flow({q.document.id: q.document_digest})  # the text asked about
        labelling = CommentedMap()
        labelling["state"] = JudgementState.UNJUDGED.value
        labelling["nothing_answers"] = False
        labelling["suggestion"] = _flow({"form": q.form.value, "overlap": round(q.overlap, 3)})
        labelling[GENERATED_KEY] = _flow(
            {"by": source, "asked_form": q.asked_form.value, "document": q.document.id}
        )
        candidate = CommentedMap()
        candidate["document_id"] = q.document.id
        candidate["title"] = q.document.title
        candidate["snippet"] = best_passage(q.question, q.document.text)
        candidate["found_by"] = _flow({})
        candidate["relevant"] = None  # a person's decision; the model's is in the history
        candidate["source"] = source
        candidate["document_digest"] = q.document_digest
        labelling["candidates"] = CommentedSeq([candidate])
        labelling["history"] = CommentedSeq([_claim(source, report.at, q.document.id)])
        item[LABELLING_KEY] = labelling
        items.append(item)
    document["questions"] = items
    write_document(document, out)
