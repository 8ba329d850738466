"""Text embedders: one small interface for everything that turns text into vectors.

The dense plugin indexes with one, a rerank stage scores with one, a vector-database kind
embeds its questions with one. Implementations are plugins in the entry-point namespace
``retrieval_eval.embedders`` (the dense plugin ships ``wordllama``, offline, and ``openai``,
any OpenAI-compatible ``/v1/embeddings`` endpoint); ``load_embedder`` creates one by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from retrieval_eval.errors import InfrastructureError, PluginError, RevalError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class EmbeddingError(InfrastructureError):
    """An embedder failed (endpoint down, refused, malformed or mis-sized answer). Raised
    by embedders; the message is one line naming the endpoint or model and the cause."""


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What produced a vector: recorded in an index's manifest and in Describe, so that an
    embedding swap is a variant change of one lineage."""

    #: The implementation, e.g. ``wordllama`` or ``openai``.
    kind: str
    #: The model, e.g. ``l2_supercat_256`` or the endpoint's model name.
    model: str
    #: A checksum of the weights, or what the endpoint tells of its revision ("" if unknown).
    revision: str
    dimensions: int

    def label(self) -> str:
        """``wordllama:l2_supercat_256@1a2b3c4d5e6f dims=64``."""
        revision = f"@{self.revision[:12]}" if self.revision else ""
        return f"{self.kind}:{self.model}{revision} dims={self.dimensions}"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text, in order.

    ``embed`` is synchronous and thread-safe; it raises ``EmbeddingError`` (never returns
    a partial or mis-sized matrix).
    """

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


class EmbedderFactory(Protocol):
    """The object behind an entry point in ``retrieval_eval.embedders``: called with the
    embedder's options (e.g. ``dimensions``, ``url``, ``model``, ``api_key_env``)."""

    def __call__(self, options: Mapping[str, Any]) -> Embedder: ...


def load_embedder(name: str, options: Mapping[str, Any] | None = None) -> Embedder:
    """Create the embedder ``name`` (an entry point) with ``options``.

    Errors a factory raises on purpose pass through; anything else is a ``PluginError``.
    """
    # stevedore only to load an embedder
    from retrieval_eval.plugins import EMBEDDERS, load_plugin

    factory: EmbedderFactory = load_plugin(EMBEDDERS, name, kind="embedder")
    try:
        embedder = factory(dict(options or {}))
    except RevalError:
        raise
    except Exception as e:
        raise PluginError(
            f"embedder plugin {name!r} could not be created: {type(e).__name__}: {e}"
        ) from e
    if not isinstance(embedder, Embedder):
        raise PluginError(f"embedder plugin {name!r} returned {type(embedder).__name__}")
    return embedder


def normalise(matrix: NDArray[Any]) -> NDArray[np.float32]:
    """Rows scaled to unit length as float32 (a zero row stays zero)."""
    # numpy only when vectors are normalised
    import numpy as np

    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: NDArray[np.float32] = rows / norms
    return out
