"""API keys of the chat proxy: only a SHA-256 of each secret is stored.

Secrets are 256 random bits, so a fast hash is enough (no password hashing
needed: there is nothing to brute-force); lookup is by hash, and the stored hash
is compared again in constant time before a key is accepted.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from typing import Literal

from engram.adapters.libsql.database import Database, Row
from engram.domain.errors import StorageError
from engram.domain.models import ApiKey, ApiKeyCreated, ApiKeyRecord
from engram.domain.models.common import from_millis, to_millis

__all__ = ["SECRET_PREFIX", "ApiKeyRepository", "hash_secret"]

log = logging.getLogger(__name__)
SECRET_PREFIX = "egm_"  # noqa: S105 - a public marker, not a secret
# Do not write `last_used_at` on every request: a chat request should not pay a write.
_LAST_USED_GRANULARITY_MS = 60_000


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _to_key(row: Row) -> ApiKey:
    return ApiKey(
        id=row["id"],
        name=row["name"],
        prefix=row["prefix"],
        created_at=from_millis(row["created_at"]),
        last_used_at=None if row["last_used_at"] is None else from_millis(row["last_used_at"]),
        revoked_at=None if row["revoked_at"] is None else from_millis(row["revoked_at"]),
    )


def _to_record(row: Row) -> ApiKeyRecord:
    key = _to_key(row)
    # Names from before they had to be printable: control characters dropped (a name
    # that began with NUL reads back empty), the id when nothing is left.
    name = "".join(c for c in key.name if c.isprintable() or c == " ").strip()[:100]
    return ApiKeyRecord(
        **key.model_dump(exclude={"name"}), name=name or key.id, secret_hash=row["secret_hash"]
    )


class ApiKeyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, name: str, now_ms: int) -> ApiKeyCreated:
        key_id = "key_" + secrets.token_hex(8)
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        prefix = secret[:12]
        self.db.execute(
            "INSERT INTO api_keys (id, name, prefix, secret_hash, created_at) VALUES (?,?,?,?,?)",
            (key_id, name, prefix, hash_secret(secret), now_ms),
        )
        return ApiKeyCreated(
            id=key_id,
            name=name,
            prefix=prefix,
            created_at=from_millis(now_ms),
            last_used_at=None,
            revoked_at=None,
            secret=secret,
        )

    def all(self) -> list[ApiKey]:
        rows = self.db.query("SELECT * FROM api_keys ORDER BY created_at DESC, id")
        return [_to_key(r) for r in rows]

    def get(self, key_id: str) -> ApiKey | None:
        row = self.db.query_one("SELECT * FROM api_keys WHERE id = ?", (key_id,))
        return None if row is None else _to_key(row)

    def revoke(self, key_id: str, now_ms: int) -> ApiKey | None:
        self.db.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            (now_ms, key_id),
        )
        return self.get(key_id)

    def authenticate(self, secret: str, now_ms: int) -> ApiKey | None:
        """The active key whose secret this is, or None."""
        if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
            return None
        digest = hash_secret(secret)
        row = self.db.query_one(
            "SELECT * FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL", (digest,)
        )
        if row is None or not hmac.compare_digest(row["secret_hash"], digest):
            return None
        last = row["last_used_at"]
        if last is None or now_ms - last >= _LAST_USED_GRANULARITY_MS:
            try:
                self.db.execute(
                    "UPDATE api_keys SET last_used_at = ? WHERE id = ?", (now_ms, row["id"])
                )
                row = {**row, "last_used_at": now_ms}
            except StorageError as exc:
                # Bookkeeping: a locked or read-only database must not refuse a valid key.
                log.info("last use of key %s not recorded: %s", row["id"], exc.message)
        return _to_key(row)

    def records(self) -> list[ApiKeyRecord]:
        rows = self.db.query("SELECT * FROM api_keys ORDER BY created_at, id")
        return [_to_record(r) for r in rows]

    def restore(
        self, record: ApiKeyRecord
    ) -> Literal["created", "unchanged", "revoked", "conflict"]:
        # Never overwritten: a different key under the same id, or the same secret under
        # another id, would change who owns which memories. A revocation does travel (a
        # key revoked during a move, say leaked, must not stay live here), never the
        # reverse. INSERT OR IGNORE: two imports racing on one record both end here.
        inserted = self.db.execute(
            "INSERT OR IGNORE INTO api_keys (id, name, prefix, secret_hash, created_at,"
            " last_used_at, revoked_at) VALUES (?,?,?,?,?,?,?)",
            (
                record.id,
                record.name,
                record.prefix,
                record.secret_hash,
                to_millis(record.created_at),
                None if record.last_used_at is None else to_millis(record.last_used_at),
                None if record.revoked_at is None else to_millis(record.revoked_at),
            ),
        )
        if inserted:
            return "created"
        same_id = self.db.query_one(
            "SELECT secret_hash, revoked_at FROM api_keys WHERE id = ?", (record.id,)
        )
        if same_id is None or not hmac.compare_digest(same_id["secret_hash"], record.secret_hash):
            return "conflict"  # the id is another key's, or the secret is under another id
        if record.revoked_at is not None and same_id["revoked_at"] is None:
            self.db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (to_millis(record.revoked_at), record.id),
            )
            return "revoked"
        return "unchanged"
