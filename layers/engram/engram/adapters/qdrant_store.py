"""The Qdrant adapter (a ``PointStore``): collection, points, filtered search, cleanup,
health.

``qdrant_client`` is imported on first use: it costs ~0.8 s, which a chat request
must not pay when Qdrant is off. Every call goes through ``_call``, which turns the
client's exceptions into ``UnavailableError`` so retrieval can fall back.

A server is given ``timeoutMs`` per call, exactly: the client only takes whole seconds
(rounded up), so each request runs in a worker thread the caller waits for no longer
than that (a request left behind ends at the client's own timeout). The health probe
is two plain HTTP requests under one deadline: it never waits for the client's import.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx

from engram.domain.errors import DimensionMismatch, UnavailableError
from engram.domain.models import MAX_TOP_K, QdrantHealth, QdrantHit, QdrantSettings

__all__ = ["DimensionMismatch", "QdrantStore"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def point_id(memory_id: str) -> str:
    """Qdrant takes UUIDs (or integers) as point ids; engine ids are UUIDs, but an imported
    memory may carry any id, which maps to a stable name-based UUID (the payload keeps the
    memory id, and hits are read back through it)."""
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return str(uuid.uuid5(_POINT_NAMESPACE, memory_id))


_POINT_NAMESPACE = uuid.UUID("6f1c2a7e-3f0b-4f64-9a53-6c8e5d1b2a90")
# Requests to a server that may be in flight at once (a hanging one holds a thread until
# the client's own timeout; callers waiting on more than this many queue, then time out).
_WORKERS = 8


class QdrantStore:
    def __init__(self, settings: QdrantSettings, data_dir: Path) -> None:
        self.settings = settings
        self.path = data_dir / "qdrant"
        self._client: Any = None
        self._lock = threading.Lock()
        self._embedded_lock = threading.Lock()
        self._dimension: int | None = None
        self._timeout_s = settings.timeout_ms / 1000
        self._pool: ThreadPoolExecutor | None = None
        self._http: httpx.Client | None = None

    # -- plumbing -----------------------------------------------------------------------

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                from qdrant_client import QdrantClient

                s = self.settings
                if s.host:
                    self._client = QdrantClient(
                        host=s.host,
                        port=s.port,
                        https=s.https,
                        api_key=s.api_key.get_secret_value() if s.api_key else None,
                        timeout=max(1, s.timeout_ms // 1000),
                        prefer_grpc=False,
                        # The version check is an extra request at connect time; a hanging
                        # server would make every fallback wait for it.
                        check_compatibility=False,
                    )
                else:
                    self.path.mkdir(parents=True, exist_ok=True)
                    self._client = QdrantClient(path=str(self.path))
            return self._client

    def _call(self, what: str, action: Callable[[Any], T]) -> T:
        try:
            client = self._connect()
            if not self.settings.host:  # embedded: in this process, nothing to wait for
                # qdrant-client's local mode is not thread-safe: a count beside an upsert
                # raised ValueError/IndexError (7 of 300 cleanups with a writer running).
                with self._embedded_lock:
                    return action(client)
            return self._bounded(what, lambda: action(client))
        except UnavailableError:
            raise
        except Exception as exc:  # any client or transport failure degrades
            # The type only: messages can carry URLs; the key is never in them, but keep
            # the log to what is needed.
            raise UnavailableError(f"qdrant {what} failed ({type(exc).__name__})") from exc

    def _bounded(self, what: str, work: Callable[[], T]) -> T:
        """``work`` in a worker thread, waited for ``timeoutMs`` at most."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="engram-qdrant")
            future: Future[T] = self._pool.submit(work)
        try:
            return future.result(timeout=self._timeout_s)
        except TimeoutError:
            future.cancel()  # still queued: never sent
            raise UnavailableError(
                f"qdrant {what} timed out after {self.settings.timeout_ms} ms"
            ) from None

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
            if self._http is not None:
                self._http.close()
                self._http = None
            if self._pool is not None:
                # Requests left behind by a timeout end at the client's own timeout.
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    # -- collection -------------------------------------------------------------------

    def collection_dimension(self) -> int | None:
        def read(client: Any) -> int | None:
            if not client.collection_exists(self.settings.collection):
                return None
            info = client.get_collection(self.settings.collection)
            return int(info.config.params.vectors.size)

        return self._call("collection lookup", read)

    def ensure_collection(self, dimension: int) -> None:
        """Create it on first use (cosine, ``dimension``); refuse another dimension."""
        if self._dimension == dimension:
            return
        existing = self.collection_dimension()
        if existing is not None and existing != dimension:
            raise DimensionMismatch(
                f"qdrant collection {self.settings.collection} holds {existing}-d vectors but the"
                f" embedder makes {dimension}-d ones: use a new collection name, or delete it"
            )
        if existing is None:
            from qdrant_client import models

            quantization: Any = None
            if self.settings.quantization == "int8":
                quantization = models.ScalarQuantization(
                    scalar=models.ScalarQuantizationConfig(
                        type=models.ScalarType.INT8, quantile=0.99, always_ram=True
                    )
                )
            elif self.settings.quantization == "binary":
                quantization = models.BinaryQuantization(
                    binary=models.BinaryQuantizationConfig(always_ram=True)
                )
            self._call(
                "collection creation",
                lambda c: c.create_collection(
                    self.settings.collection,
                    vectors_config=models.VectorParams(
                        size=dimension, distance=models.Distance.COSINE
                    ),
                    quantization_config=quantization,
                ),
            )
            if self.settings.host:  # payload indexes exist on a server, not in embedded mode
                for field in ("apiKeyId", "sessionId"):
                    self._index(field, models.PayloadSchemaType.KEYWORD)
        self._dimension = dimension

    def _index(self, field: str, schema: Any) -> None:
        self._call(
            "index creation",
            lambda c: c.create_payload_index(self.settings.collection, field, schema),
        )

    # -- points -----------------------------------------------------------------------

    def upsert(self, points: Sequence[tuple[str, Sequence[float], dict[str, Any]]]) -> None:
        if not points:
            return
        from qdrant_client import models

        self.ensure_collection(len(points[0][1]))
        structs = [
            models.PointStruct(id=point_id(memory_id), vector=list(vector), payload=payload)
            for memory_id, vector, payload in points
        ]
        self._call("upsert", lambda c: c.upsert(self.settings.collection, points=structs))

    def delete(self, memory_ids: Sequence[str]) -> None:
        from qdrant_client import models

        if self.collection_dimension() is None:
            return
        self._call(
            "delete",
            lambda c: c.delete(
                self.settings.collection,
                points_selector=models.PointIdsList(points=[point_id(m) for m in memory_ids]),
            ),
        )

    def search(
        self,
        vector: Sequence[float],
        owners: Sequence[str],
        session_id: str | None,
        top_k: int,
        now_unix: float,
        cutoff_unix: float,
    ) -> list[QdrantHit]:
        """Nearest points of the owners (and session), live and within retention."""
        from qdrant_client import models

        # Reads never create the collection (that is the writers' job): none yet, no hits.
        if self._dimension is None:
            existing = self.collection_dimension()
            if existing is None:
                return []
            if existing != len(vector):
                raise DimensionMismatch(
                    f"qdrant collection {self.settings.collection} holds {existing}-d vectors"
                    f" but the embedder makes {len(vector)}-d ones"
                )
            self._dimension = existing
        elif self._dimension != len(vector):
            raise DimensionMismatch(
                f"qdrant collection {self.settings.collection} holds {self._dimension}-d"
                f" vectors but the embedder makes {len(vector)}-d ones"
            )
        must: list[Any] = [
            models.FieldCondition(key="apiKeyId", match=models.MatchAny(any=list(owners))),
            # Retention counts from the last write, as in libSQL (updatedAtUnix).
            models.FieldCondition(key="updatedAtUnix", range=models.Range(gte=cutoff_unix)),
        ]
        if session_id is not None:
            must.append(
                models.FieldCondition(key="sessionId", match=models.MatchValue(value=session_id))
            )
        expired = models.FieldCondition(key="expiresAtUnix", range=models.Range(lte=now_unix))
        query_filter = models.Filter(must=must, must_not=[expired])
        params = None
        if self.settings.quantization != "none":
            params = models.SearchParams(quantization=models.QuantizationSearchParams(rescore=True))
        result = self._call(
            "search",
            lambda c: c.query_points(
                self.settings.collection,
                query=list(vector),
                query_filter=query_filter,
                limit=max(1, min(top_k, MAX_TOP_K)),
                search_params=params,
                with_payload=True,
            ),
        )
        return [
            QdrantHit(
                str((p.payload or {}).get("memoryId", p.id)), float(p.score), dict(p.payload or {})
            )
            for p in result.points
        ]

    def count(self) -> int:
        if self.collection_dimension() is None:
            return 0
        return int(self._call("count", lambda c: c.count(self.settings.collection).count))

    def cleanup(self, now_unix: float, cutoff_unix: float, dry_run: bool = False) -> int:
        """Points expired or created before the cut-off: counted, then deleted."""
        from qdrant_client import models

        if self.collection_dimension() is None:
            return 0
        stale = models.Filter(
            should=[
                models.FieldCondition(key="expiresAtUnix", range=models.Range(lte=now_unix)),
                models.FieldCondition(key="updatedAtUnix", range=models.Range(lt=cutoff_unix)),
            ]
        )
        count = int(
            self._call(
                "count", lambda c: c.count(self.settings.collection, count_filter=stale).count
            )
        )
        if count and not dry_run:
            self._call(
                "cleanup",
                lambda c: c.delete(
                    self.settings.collection, points_selector=models.FilterSelector(filter=stale)
                ),
            )
        return count

    def health(self) -> QdrantHealth:
        """The collection's dimension and exact point count, within ``timeoutMs`` in all
        (a server is probed over plain HTTP: no client import, no retries)."""
        started = time.perf_counter()
        try:
            if self.settings.host:
                dimension, points = self._bounded("health probe", self._probe)
            else:
                dimension = self.collection_dimension()
                points = self.count() if dimension else 0
        except UnavailableError as exc:
            return QdrantHealth(ok=False, latency_ms=_ms(started), error=exc.message)
        return QdrantHealth(ok=True, latency_ms=_ms(started), points=points, dimension=dimension)

    def _probe(self) -> tuple[int | None, int]:
        """(dimension, points) of the collection, None and 0 when it does not exist yet."""
        s = self.settings
        host = f"[{s.host}]" if ":" in s.host and not s.host.startswith("[") else s.host
        base = f"{'https' if s.https else 'http'}://{host}:{s.port}/collections/{s.collection}"
        with self._lock:
            if self._http is None:
                headers = {"api-key": s.api_key.get_secret_value()} if s.api_key else {}
                self._http = httpx.Client(headers=headers, timeout=self._timeout_s)
            http = self._http
        try:
            info = http.get(base)
            if info.status_code == 404:
                return None, 0
            info.raise_for_status()
            dimension = int(info.json()["result"]["config"]["params"]["vectors"]["size"])
            counted = http.post(f"{base}/points/count", json={"exact": True})
            counted.raise_for_status()
            return dimension, int(counted.json()["result"]["count"])
        except httpx.HTTPStatusError as exc:
            raise UnavailableError(
                f"qdrant health probe answered {exc.response.status_code}"
            ) from None
        except httpx.TimeoutException:
            raise UnavailableError(
                f"qdrant health probe timed out after {s.timeout_ms} ms"
            ) from None
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            # The type only: a transport message can carry the URL.
            raise UnavailableError(f"qdrant health probe failed ({type(exc).__name__})") from None


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
