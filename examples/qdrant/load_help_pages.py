"""Embed the example corpus into a Qdrant collection "help_pages" (each point's payload
"doc_id" is the document id), in qdrant-client's embedded local mode at PATH, or on a
server at URL: python load_help_pages.py PATH-or-URL [DIMENSIONS]"""

import json
import sys

from qdrant_client import QdrantClient, models

from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.embedding import load_embedder

where = sys.argv[1]
dimensions = int(sys.argv[2]) if len(sys.argv) > 2 else 256
embedder = load_embedder("wordllama", {"dimensions": dimensions})
rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
vectors = embedder.embed([f"{r['title']} {r['text']}" for r in rows])
client = QdrantClient(url=where) if where.startswith("http") else QdrantClient(path=where)
if client.collection_exists("help_pages"):
    client.delete_collection("help_pages")
client.create_collection(
    "help_pages",
    vectors_config=models.VectorParams(size=dimensions, distance=models.Distance.COSINE),
)
client.upsert(
    "help_pages",
    points=[
        models.PointStruct(id=n, vector=v.tolist(), payload={"doc_id": r["_id"]})
        for n, (r, v) in enumerate(zip(rows, vectors, strict=True))
    ],
)
client.close()
print(f"loaded {len(rows)} pages into help_pages")
