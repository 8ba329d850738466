"""Small corpora written inline, shared by the plugin's tests."""

from __future__ import annotations

import json
from pathlib import Path

DOCS = [
    {"_id": "scurvy", "title": "Scurvy", "text": "Scurvy is caused by a lack of vitamin C."},
    {"_id": "rickets", "title": "Rickets", "text": "Rickets comes from too little vitamin D."},
    {"_id": "beriberi", "title": "Beriberi", "text": "Beriberi follows a thiamine deficiency."},
    {"_id": "pellagra", "title": "Pellagra", "text": "Pellagra results from lacking niacin."},
    {"_id": "goitre", "title": "Goitre", "text": "An iodine shortage enlarges the thyroid."},
]


def write_jsonl(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), "utf-8")
    return path
