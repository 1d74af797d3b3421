"""Adapters: the engine's ports implemented over real parts (libSQL, Qdrant, embedding
models, a reranker, the upstream provider, SQS). Only ``engram.wiring`` imports them."""
