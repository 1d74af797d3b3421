"""potion-base-8M static embeddings (model2vec format): a token table and a mean.

A text's vector is the mean of its tokens' rows, normalised: no neural network,
~0.15 ms per short memory. Tokenised without special tokens, padding or truncation,
unknown tokens dropped, which reproduces model2vec's own output.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engram.adapters.embeddings.base import Vectors, normalize
from engram.domain.errors import EmbeddingError

__all__ = ["StaticEmbedder"]


class StaticEmbedder:
    source = "static"

    def __init__(self, folder: Path, model: str) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            self._table = load_file(str(folder / "model.safetensors"))["embeddings"]
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except (OSError, KeyError, ValueError, Exception) as exc:
            raise EmbeddingError(f"cannot load the static model from {folder}: {exc}") from exc
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        unk = tokenizer.token_to_id("[UNK]")
        self._unk = -1 if unk is None else unk
        self.model = model
        self.dim = int(self._table.shape[1])

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            ids = [i for i in encoding.ids if i != self._unk]
            if ids:
                out[row] = self._table[ids].mean(axis=0)
        return normalize(out)
