"""Load the example corpus into PostgreSQL as vectors, one float8[] per page, embedded by
the dense plugin's offline wordllama: python load_help_pages.py URL DIMENSIONS

A plain array column needs no extension; with pgvector, make the column vector(DIMENSIONS)
instead (the values are the same) and rank with its <=> operator."""

import json
import sys

import psycopg

from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.embedding import load_embedder

url, dimensions = sys.argv[1], int(sys.argv[2])
rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
embedder = load_embedder("wordllama", {"dimensions": dimensions})
vectors = embedder.embed([f"{r['title']} {r['text']}" for r in rows])
with psycopg.connect(url, autocommit=True) as db:
    db.execute("DROP TABLE IF EXISTS help_page_vectors")
    db.execute("CREATE TABLE help_page_vectors (id text PRIMARY KEY, embedding float8[] NOT NULL)")
    with db.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO help_page_vectors (id, embedding) VALUES (%s, %s)",
            [(r["_id"], v.tolist()) for r, v in zip(rows, vectors, strict=True)],
        )
print(f"loaded {len(rows)} pages into help_page_vectors ({dimensions} dimensions)")
