"""A retriever for reval's ``command`` kind: JSON lines on stdin/stdout, no gRPC.

    python3 examples/command-retriever/retriever.py CORPUS.jsonl

Reads one question per line (``{"id": 7, "question": "...", "limit": 12}``) and answers
each with one line echoing its id (``{"id": 7, "results": [{"document_id": "...",
"score": 2.0}]}``), in the order asked, ranking the corpus'
documents (BEIR JSONL: ``_id``, ``title``, ``text``) by how many distinct question words
they contain. ``retriever.js`` beside it does exactly the same in Node.js.
"""

import json
import re
import sys

WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def main() -> None:
    documents = []
    with open(sys.argv[1], encoding="utf-8") as corpus:
        for line in corpus:
            if line.strip():
                doc = json.loads(line)
                documents.append((doc["_id"], words(doc.get("title", "") + " " + doc["text"])))
    for line in sys.stdin:
        request = {}
        try:
            request = json.loads(line)
            asked = words(request["question"])
            limit = int(request["limit"])
        except (ValueError, KeyError, TypeError) as e:
            failed = {"error": f"bad request: {e}"}
            if isinstance(request, dict) and "id" in request:
                failed["id"] = request["id"]
            print(json.dumps(failed), flush=True)
            continue
        scored = [(len(asked & terms), doc_id) for doc_id, terms in documents]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        results = [{"document_id": d, "score": float(s)} for s, d in ranked[:limit]]
        print(json.dumps({"id": request["id"], "results": results}), flush=True)


if __name__ == "__main__":
    main()
