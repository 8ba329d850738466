"""Load the example corpus into PostgreSQL with a full-text index: python load_help_pages.py URL"""

import json
import sys

import psycopg

from retrieval_eval.example_data import corpus_path

with psycopg.connect(sys.argv[1], autocommit=True) as db:
    db.execute("DROP TABLE IF EXISTS help_pages")
    db.execute(
        "CREATE TABLE help_pages (id text PRIMARY KEY, title text, body text, "
        "tsv tsvector GENERATED ALWAYS AS "
        "(to_tsvector('english', title || ' ' || body)) STORED)"
    )
    db.execute("CREATE INDEX ON help_pages USING gin (tsv)")
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    with db.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO help_pages (id, title, body) VALUES (%s, %s, %s)",
            [(r["_id"], r["title"], r["text"]) for r in rows],
        )
    print(f"loaded {len(rows)} pages into help_pages")
