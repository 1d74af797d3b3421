"""Credentials in the settings table, sealed: encrypted and authenticated at rest.

A backend's API key and headers and the Qdrant API key are written as
``enc:v1:<key id>:<base64>``, libsodium's secret box (XSalsa20-Poly1305, through
PyNaCl) under a 32-byte key, so a copy of the database (a backup, a replica, a leaked
file) holds no usable credential. ``cryptography`` was the first choice: at 15 MiB it
does not fit beside the transformers layer under Lambda's 250 MiB (template.yaml's
Rules); PyNaCl with its cffi is under 5.

The keys (``ENGRAM_SECRETS_KEY``, or the secret ``ENGRAM_SECRETS_KEY_SECRET`` names):
one or more base64 keys, comma-separated, the first sealing and all opening. Rotation:
put a new key first, run ``engram reseal-secrets`` (every credential sealed again with
it), then drop the old key (docs/storage.md). Without a configured key, a database file
gets a key file of its own beside it (``<db>.key``, mode 0600, made on first use: back
up both, keep them apart); ``:memory:`` a key for the process; a remote database none:
saving a credential there is refused until a key is configured.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import secrets
from pathlib import Path

import nacl.exceptions
import nacl.secret

from engram.domain.errors import ConfigError, ConflictError

__all__ = ["SEALED", "Sealer", "new_key", "parse_keys", "sealer_for"]

log = logging.getLogger(__name__)

SEALED = "enc:v1:"
KEY_BYTES = nacl.secret.SecretBox.KEY_SIZE


def new_key() -> str:
    """A fresh key, as ``ENGRAM_SECRETS_KEY`` takes it."""
    return base64.urlsafe_b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")


def parse_keys(text: str) -> list[bytes]:
    """``ENGRAM_SECRETS_KEY``'s keys, newest first; ``ConfigError`` for a malformed one
    (the message never repeats a key)."""
    keys = []
    for position, part in enumerate(p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            key = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != KEY_BYTES:
            raise ConfigError(
                f"ENGRAM_SECRETS_KEY: key {position + 1} is not {KEY_BYTES} bytes of base64"
            )
        keys.append(key)
    return keys


def _key_id(key: bytes) -> str:
    return hashlib.blake2b(key, digest_size=4, person=b"engram-key").hexdigest()


class Sealer:
    """Seals and opens credential strings with the configured keys."""

    def __init__(self, keys: list[bytes], missing: str = "") -> None:
        self._boxes = {_key_id(k): nacl.secret.SecretBox(k) for k in keys}
        self._newest = _key_id(keys[0]) if keys else None
        # Why there is no key, said when a credential is saved.
        self._missing = missing

    def is_sealed(self, value: str) -> bool:
        return value.startswith(SEALED)

    def seal(self, plain: str) -> str:
        if self.is_sealed(plain):
            return plain  # never sealed twice (a value that could not be opened stays as is)
        if self._newest is None:
            raise ConflictError(self._missing)
        box = self._boxes[self._newest]
        token = base64.urlsafe_b64encode(box.encrypt(plain.encode("utf-8"))).decode("ascii")
        return f"{SEALED}{self._newest}:{token}"

    def open(self, value: str) -> str:
        """The plain credential; a value never sealed (written before sealing) as it is;
        one no configured key opens, as it is, with a warning: the request using it then
        fails at the remote end, and saving the settings again does not lose it."""
        if not self.is_sealed(value):
            return value
        key_id, _, token = value[len(SEALED) :].partition(":")
        box = self._boxes.get(key_id)
        if box is None:
            log.warning("a stored credential was sealed with a key not configured (%s)", key_id)
            return value
        try:
            return box.decrypt(base64.urlsafe_b64decode(token)).decode("utf-8")
        except (nacl.exceptions.CryptoError, binascii.Error, ValueError, UnicodeDecodeError):
            log.warning("a stored credential does not open with its key (%s)", key_id)
            return value

    def is_current(self, value: str) -> bool:
        """Whether ``value`` is sealed with the newest key (``reseal`` changes the rest)."""
        return self.is_sealed(value) and value[len(SEALED) :].startswith(f"{self._newest}:")


def _key_file(path: Path) -> bytes:
    """The database's own key, made on first use, readable by its owner only."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first: read theirs
        else:
            with os.fdopen(descriptor, "w") as out:
                out.write(new_key() + "\n")
    keys = parse_keys(path.read_text())
    if not keys:
        raise ConfigError(f"the key file {path.name} beside the database is empty")
    return keys[0]


def sealer_for(configured: str | None, database_file: str | None, remote: bool) -> Sealer:
    """The sealer a deployment uses: the configured keys, else the database file's own
    key, else (``:memory:``) a key for this process, else (remote) none."""
    if configured:
        return Sealer(parse_keys(configured))
    if remote:
        return Sealer(
            [],
            missing="credentials cannot be stored: this deployment's database is remote and"
            " ENGRAM_SECRETS_KEY is not set (docs/storage.md: sealed credentials)",
        )
    if database_file is None or database_file == ":memory:":
        return Sealer([secrets.token_bytes(KEY_BYTES)])
    return Sealer([_key_file(Path(f"{database_file}.key"))])
