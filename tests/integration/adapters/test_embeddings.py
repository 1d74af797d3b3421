"""The embedding sources: the real offline models, and a real local /embeddings server."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import SecretStr

from engram import EmbeddingError, MemorySettings, TransientEmbeddingError
from engram.adapters.embeddings.cache import CachedEmbedder, RetryingEmbedder
from engram.adapters.embeddings.catalog import LocalCatalog, RemoteKeys, remote_endpoint
from engram.adapters.embeddings.remote import RemoteEmbedder
from tests.support.upstream_stub import StubUpstream

TEXTS = [
    "I prefer TypeScript for frontend work",
    "Which programming language does the user like?",
    "My cat is named Biscuit",
]


def local(source: str):
    settings = MemorySettings(
        embedding_source=source, static_enabled=True, transformers_enabled=True
    )
    resolution = LocalCatalog().resolve(settings)
    assert resolution.embedder is not None, resolution.reason
    return resolution.embedder


@pytest.mark.parametrize(("source", "dim"), [("static", 256), ("transformers", 384)])
def test_local_models_embed_offline(source, dim):
    embedder = local(source)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (3, dim)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]  # languages are closer to each other than to cats
    assert np.allclose(embedder.embed(TEXTS), vectors)  # deterministic
    assert embedder.key(TEXTS[0]).startswith(f"{source}:")


def test_transformers_batches_and_truncates_long_texts():
    embedder = local("transformers")
    texts = [f"memory number {i} " + "word " * 400 for i in range(40)]  # > 32, > 256 tokens
    vectors = embedder.embed(texts)
    assert vectors.shape == (40, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_static_text_without_known_tokens_is_a_zero_vector():
    assert not local("static").embed(["\u2063"]).any()


def test_missing_model_files_are_a_clear_error(tmp_path):
    catalog = LocalCatalog(assets_root=tmp_path)
    resolution = catalog.resolve(MemorySettings(embedding_source="static"))
    assert resolution.embedder is None
    assert "model files missing" in resolution.reason
    static = next(p for p in catalog.providers(MemorySettings()) if p.source == "static")
    assert not static.available and "model files missing" in static.reason


def test_the_model_setting_picks_the_model_files():
    """MEMORY_STATIC_MODEL names the model loaded, not only its label."""
    resolution = LocalCatalog(static_model="potion-base-32M").resolve(MemorySettings())
    assert resolution.embedder is None
    assert "unknown static model 'potion-base-32M'" in resolution.reason
    assert LocalCatalog().resolve(MemorySettings()).embedder.model == "potion-base-8M"


@pytest.fixture
def stub():
    with StubUpstream() as upstream:
        yield upstream


def test_remote_embeds_over_http_and_learns_the_dimension(stub):
    embedder = RemoteEmbedder(stub.url, "text-embedding-3-small", "sk-test")
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (3, 8)
    assert embedder.dim == 8
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    request = stub.requests[-1]
    assert request["json"] == {"model": "text-embedding-3-small", "input": TEXTS}
    assert request["headers"]["Authorization"] == "Bearer sk-test"


def test_transient_errors_are_retried_once(stub):
    embedder = RetryingEmbedder(RemoteEmbedder(stub.url, "m", "sk"))
    stub.embedding_statuses = [429]
    assert embedder.embed(["a"]).shape == (1, 8)
    assert stub.embedding_calls == 2
    stub.embedding_statuses = [503, 502]
    with pytest.raises(TransientEmbeddingError):
        embedder.embed(["b"])
    assert stub.embedding_calls == 4


def test_permanent_errors_are_not_retried(stub):
    embedder = RetryingEmbedder(RemoteEmbedder(stub.url, "m", "sk"))
    stub.embedding_statuses = [401]
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["a"])
    assert not isinstance(info.value, TransientEmbeddingError)
    assert stub.embedding_calls == 1
    assert "sk" not in info.value.message


def test_timeouts_are_transient(stub):
    stub.mode, stub.hang_s = "hang", 2
    embedder = RetryingEmbedder(RemoteEmbedder(stub.url, "m", "sk", timeout_s=0.3))
    with pytest.raises(TransientEmbeddingError):
        embedder.embed(["a"])


def test_a_remote_embedder_needs_a_key(stub):
    with pytest.raises(EmbeddingError):
        RemoteEmbedder(stub.url, "m", None)


def test_the_cache_keys_by_source_model_dim_and_text_hash(stub):
    clock = [0.0]
    remote = RemoteEmbedder(stub.url, "m", "sk")
    cached = CachedEmbedder(remote, max_entries=2, ttl_s=10, timer=lambda: clock[0])
    first = cached.embed(["a", "b"])
    assert stub.embedding_calls == 1
    assert np.array_equal(cached.embed(["b", "a"]), first[::-1])
    assert stub.embedding_calls == 1  # both from the cache
    assert cached.key("a") == (
        "remote:m:8:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
    )
    cached.embed(["c"])  # max 2 entries: evicts the least recently used
    assert stub.embedding_calls == 2
    clock[0] = 11  # past the TTL
    cached.embed(["c"])
    assert stub.embedding_calls == 3
    assert (cached.hits, cached.misses) == (2, 4)


def test_resolution_order_for_auto(stub):
    catalog = LocalCatalog()
    pick = lambda **kw: catalog.resolve(MemorySettings(**kw)).embedder  # noqa: E731
    assert pick().source == "static"  # default: static on
    assert pick(static_enabled=False, transformers_enabled=True).source == "transformers"
    assert pick(static_enabled=False) is None
    remote = LocalCatalog(remote=RemoteKeys(stub.url, SecretStr("sk")))
    settings = MemorySettings(custom_model_id="text-embedding-3-small")
    assert remote.resolve(settings).embedder.source == "remote"
    explicit = MemorySettings(embedding_source="remote")
    resolution = catalog.resolve(explicit)
    assert resolution.embedder is None
    assert "remote" in resolution.reason


def test_a_name_resolving_to_a_metadata_address_is_never_connected(stub, monkeypatch):
    """DNS rebinding: the connection itself resolves the name and vets every answer."""
    import socket

    real = socket.getaddrinfo
    port = int(stub.url.rsplit(":", 1)[1].split("/")[0])

    def rebinding(host, *args, **kwargs):
        if host == "rebind.test":
            return [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", port)),
            ]
        if host == "fine.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    refused = RetryingEmbedder(RemoteEmbedder(f"http://rebind.test:{port}/v1", "m", "sk"))
    with pytest.raises(EmbeddingError) as info:
        refused.embed(["a"])
    assert not isinstance(info.value, TransientEmbeddingError)  # not retried
    assert "metadata" in info.value.message
    assert stub.embedding_calls == 0
    fine = RemoteEmbedder(f"http://fine.test:{port}/v1", "m", "sk")
    assert fine.embed(["a"]).shape == (1, 8)  # the vetted address is the one connected to
    assert stub.requests[-1]["headers"]["Host"] == f"fine.test:{port}"


def test_the_upstream_key_goes_only_to_the_upstreams_origin(stub):
    upstream_key = SecretStr("sk-upstream-secret")
    elsewhere = MemorySettings(custom_base_url="https://elsewhere.example/v1", custom_model_id="m")
    same = MemorySettings(custom_model_id="m")
    keys = RemoteKeys(stub.url, upstream_key)
    assert remote_endpoint(same, keys).api_key == upstream_key
    assert remote_endpoint(elsewhere, keys) is None  # an admin cannot redirect the key
    catalog = LocalCatalog(remote=keys)
    provider = next(p for p in catalog.providers(elsewhere) if p.source == "remote")
    assert not provider.available and "ENGRAM_EMBEDDING_API_KEY" in provider.reason
    own = RemoteKeys(stub.url, upstream_key, SecretStr("sk-embedding"))
    assert remote_endpoint(elsewhere, own).api_key.get_secret_value() == "sk-embedding"
