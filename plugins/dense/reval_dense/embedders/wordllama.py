"""WordLlama's ``l2_supercat_256``: a static embedding model shipped inside the
``wordllama`` wheel, so the default embedder works offline on a fresh machine.

The model is Matryoshka-trained: its first 64, 128 or 256 of 256 dimensions are each a
usable embedding (fewer dimensions: a smaller, faster, coarser index). wordllama 0.4.0
looks for its tokenizer under ``tokenizer/`` while the wheel ships ``tokenizers/``; giving
the package directory as ``cache_dir`` finds both files, and ``disable_download`` makes
certain nothing is ever fetched.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import threading
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import chain
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from retrieval_eval.plugin_api import ConfigError, EmbedderIdentity, EmbeddingError, normalise

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

KIND = "wordllama"
CONFIG = "l2_supercat"
#: Dimensions of the shipped weights; larger Matryoshka sizes need weights not shipped.
FULL_DIMENSIONS = 256
MIN_DIMENSIONS = 64
DEFAULT_DIMENSIONS = 256
OPTIONS = ("dimensions",)
#: Texts tokenized and pooled at once (bounds the gathered token matrix).
POOL_BATCH = 64


def _wordllama() -> ModuleType:
    """The ``wordllama`` package, imported without its side effect on logging: its import
    calls ``logging.basicConfig(level=INFO)``, after which every library's INFO record
    (each ``reval check-retriever`` result, say, beside the line the command prints)
    would go to the standard error of whatever process loads the model. A root logger
    the process had set up before is left as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    wordllama = importlib.import_module("wordllama")
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    return wordllama


def _package_dir() -> Path:
    return Path(_wordllama().__file__ or "").parent


def weights_path() -> Path:
    return _package_dir() / "weights" / f"{CONFIG}_{FULL_DIMENSIONS}.safetensors"


@cache
def weights_checksum() -> str:
    """sha256 of the shipped weights: the model revision an index records."""
    digest = hashlib.sha256()
    with weights_path().open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_dimensions(dimensions: object) -> int:
    if (
        isinstance(dimensions, bool)
        or not isinstance(dimensions, int)
        or not MIN_DIMENSIONS <= dimensions <= FULL_DIMENSIONS
    ):
        raise ConfigError(
            f"wordllama dimensions must be an integer from {MIN_DIMENSIONS} to "
            f"{FULL_DIMENSIONS} (the shipped {CONFIG}_{FULL_DIMENSIONS} model; Matryoshka "
            f"sizes 64, 128, 256), got {dimensions!r}"
        )
    return dimensions


@cache
def _load(dimensions: int) -> Any:
    """The model truncated to ``dimensions``, loaded once per process (it is read-only)."""
    try:
        return _wordllama().WordLlama.load(
            config=CONFIG,
            cache_dir=_package_dir(),
            disable_download=True,
            dim=FULL_DIMENSIONS,
            trunc_dim=dimensions if dimensions < FULL_DIMENSIONS else None,
        )
    except (OSError, ValueError) as e:  # FileNotFoundError when a file is missing
        raise EmbeddingError(f"wordllama: cannot load {CONFIG}: {e}") from e


class WordLlamaEmbedder:
    """``Embedder`` over the shipped model, truncated to ``dimensions``."""

    def __init__(self, dimensions: int = DEFAULT_DIMENSIONS) -> None:
        self.dimensions = check_dimensions(dimensions)
        if not weights_path().is_file():
            raise EmbeddingError(
                f"wordllama: the shipped weights are missing ({weights_path()}); "
                "reinstall wordllama==0.4.0.post1"
            )
        self._model = _load(self.dimensions)
        from tokenizers import Tokenizer

        # The model's tokenizer without padding: pooling sums each text's own tokens, so
        # a batch costs its tokens, not its count times its longest text.
        self._tokenizer = Tokenizer.from_str(self._model.tokenizer.to_str())
        self._tokenizer.no_padding()
        self._table = self._model.embedding[:, : self.dimensions]
        self._lock = threading.Lock()
        self._identity = EmbedderIdentity(
            KIND, f"{CONFIG}_{FULL_DIMENSIONS}", weights_checksum(), self.dimensions
        )

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One row per text: the mean of its tokens' vectors (WordLlama's pooling; an empty
        text gives a zero row), normalised. Calls are serialised (one tokenizer)."""
        import numpy as np

        if len(texts) == 1:  # a question: no batch to assemble
            with self._lock:
                ids = self._tokenizer.encode(texts[0], add_special_tokens=False).ids
            if not ids:
                return np.zeros((1, self.dimensions), dtype=np.float32)
            rows = self._table[np.clip(ids, 0, len(self._table) - 1)]
            return normalise(rows.mean(axis=0, dtype=np.float32)[None, :])
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        with self._lock:
            for start in range(0, len(texts), POOL_BATCH):
                batch = list(texts[start : start + POOL_BATCH])
                encodings = self._tokenizer.encode_batch(batch, add_special_tokens=False)
                out[start : start + len(batch)] = self._pool([e.ids for e in encodings])
        return normalise(out)

    def _pool(self, token_ids: list[list[int]]) -> NDArray[np.float32]:
        import numpy as np

        lengths = np.fromiter(map(len, token_ids), dtype=np.int64, count=len(token_ids))
        pooled = np.zeros((len(token_ids), self.dimensions), dtype=np.float32)
        filled = lengths > 0
        if not filled.any():
            return pooled
        ids = np.fromiter(chain.from_iterable(token_ids), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self._table) - 1, out=ids)
        starts = np.concatenate(([0], np.cumsum(lengths[filled])[:-1]))
        sums = np.add.reduceat(self._table[ids], starts, axis=0, dtype=np.float32)
        pooled[filled] = sums / lengths[filled, None].astype(np.float32)
        return pooled


def create(options: Mapping[str, Any]) -> WordLlamaEmbedder:
    """Entry point of ``retrieval_eval.embedders``: ``{"dimensions": 64}``."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"wordllama embedder: unknown option(s) {unknown}; it takes {OPTIONS}")
    return WordLlamaEmbedder(options.get("dimensions", DEFAULT_DIMENSIONS))
