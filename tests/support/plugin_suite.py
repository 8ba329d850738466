"""The suite the pytest plugin's tests run: a four-question set and a retriever that
answers from a fixed table (tests/pytest_plugin)."""

from __future__ import annotations

#: Third-party pytest plugins of the test environment that no suite here uses (hypothesis,
#: langsmith): importing them was most of each suite's pytest start-up. reval's own plugin
#: still loads through its installed ``pytest11`` entry point.
UNUSED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin")

SET = {
    "name": "faq",
    "questions": [
        {"id": "faq-1", "question": "q1", "form": "MATCH", "expected_document_ids": ["d1"]},
        {"id": "faq-2", "question": "q2", "form": "GAP", "expected_document_ids": ["d2"]},
        {"id": "faq-3", "question": "q3", "form": "GAP", "expected_document_ids": ["d3"]},
        {
            "id": "faq-4",
            "question": "q4",
            "form": "MATCH",
            "expected_document_ids": ["d4"],
            "hard_class": "near-duplicate",
        },
    ],
}

GOOD = {"q1": ["d1", "d9"], "q2": ["d2"], "q3": ["d7", "d3"], "q4": ["d4"]}

#: faq-1 falls to rank 4 and faq-4 to rank 2: top-1 2/4 -> 0/4... see each test.
BAD = {"q1": ["d8", "d7", "d6", "d1"], "q2": ["d2"], "q3": ["d7", "d3"], "q4": ["d9", "d4"]}

RETRIEVER = '''
from retrieval_eval.records.run import RetrieverDescription


class Table:
    """A fixed ranking per question; ``FAIL`` raises."""

    def __init__(self, answers):
        self.answers = answers

    def retrieve(self, question, limit):
        answer = self.answers.get(question, [])
        if answer == "FAIL":
            raise RuntimeError("shard offline")
        return answer[:limit]

    def describe(self):
        return RetrieverDescription("table", "1")
'''


PASSING = f"""
def test_quality(reval):
    run = reval.evaluate("faq.yaml", Table({GOOD!r}))
    reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
    reval.assert_rate(run, "top1_hit_rate", at_least=0.5, form="GAP")
    reval.assert_no_regression(run)
"""
