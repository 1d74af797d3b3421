"""all-MiniLM-L6-v2 (int8 ONNX) through onnxruntime: mean pooling over the attention
mask, normalised. Batches are padded to their longest text and cut at 256 tokens."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engram.adapters.embeddings.base import Vectors, normalize
from engram.domain.errors import EmbeddingError

__all__ = ["TransformersEmbedder"]

_MAX_TOKENS = 256
_BATCH = 32  # bounds peak memory (~500 MB with 32 long texts)


class TransformersEmbedder:
    source = "transformers"
    dim = 384

    def __init__(self, folder: Path, model: str) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer

            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            self._session: Any = onnxruntime.InferenceSession(
                str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:
            raise EmbeddingError(f"cannot load the transformers model: {exc}") from exc
        tokenizer.enable_padding()
        tokenizer.enable_truncation(_MAX_TOKENS)
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.model = model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._batch(list(texts[i : i + _BATCH])) for i in range(0, len(texts), _BATCH)]
        return np.concatenate(parts)

    def _batch(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            hidden = self._session.run(None, feeds)[0]
        except Exception as exc:
            raise EmbeddingError(f"transformers inference failed: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize(pooled)
