"""Embedders: remote (OpenAI-compatible), static (potion-base-8M), transformers
(MiniLM int8 ONNX), each wrapped in a cache and a retry policy."""
