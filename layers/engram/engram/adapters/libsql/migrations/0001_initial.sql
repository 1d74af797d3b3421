-- Memories. `seq` is the integer rowid the FTS5 index needs; `id` is the public UUID.
-- Times are Unix epoch milliseconds (UTC): cheap to index and to compare.
CREATE TABLE memories (
    seq            INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    api_key_id     TEXT    NOT NULL,
    session_id     TEXT,
    type           TEXT    NOT NULL
                   CHECK (type IN ('factual', 'episodic', 'procedural', 'semantic')),
    key            TEXT    NOT NULL,
    content        TEXT    NOT NULL,
    metadata       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    expires_at     INTEGER,
    -- Searchable text around the memory: its neighbours in the same session (the two
    -- before and after it) and the words of its date. Maintained by the repository.
    context        TEXT    NOT NULL DEFAULT '',
    -- The content's vector in libSQL's native encoding (F32_BLOB, or F8 when
    -- MEMORY_VEC_QUANTIZATION=int8) for the signature in vector_meta; NULL until embedded.
    embedding      BLOB,
    -- 1 until a vector for the current embedding signature is stored.
    needs_reindex  INTEGER NOT NULL DEFAULT 1,
    -- The owner's version at this row's last write (owner_versions): lets a process
    -- refresh its in-memory vector matrix with only what changed.
    version        INTEGER NOT NULL DEFAULT 0,
    -- The owner as one FTS token (hex of the id, ending in a digit so no stemming rule
    -- applies). ANDed into MATCH, it makes FTS5 score only the owner's rows; the exact
    -- `api_key_id` condition still decides isolation.
    owner_token    TEXT GENERATED ALWAYS AS ('o' || lower(hex(api_key_id)) || '0') VIRTUAL
);

CREATE UNIQUE INDEX memories_owner_key ON memories (api_key_id, key);
CREATE INDEX memories_owner_updated ON memories (api_key_id, updated_at DESC);
CREATE INDEX memories_owner_created ON memories (api_key_id, created_at DESC);
CREATE INDEX memories_owner_session ON memories (api_key_id, session_id, updated_at DESC);
CREATE INDEX memories_owner_type ON memories (api_key_id, type);
CREATE INDEX memories_session ON memories (session_id);
CREATE INDEX memories_type ON memories (type);
CREATE INDEX memories_created ON memories (created_at DESC);
CREATE INDEX memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_reindex ON memories (needs_reindex) WHERE needs_reindex = 1;
CREATE INDEX memories_owner_version ON memories (api_key_id, version);

-- Full-text index over key, content and context (plus the owner token), external
-- content: no second copy of the text. Porter stemming lets "deploying" match "deploys".
CREATE VIRTUAL TABLE memory_fts USING fts5 (
    key, content, context, owner_token,
    content = 'memories', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memory_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memory_fts (rowid, key, content, context, owner_token)
    VALUES (new.seq, new.key, new.content, new.context, new.owner_token);
END;

CREATE TRIGGER memory_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, key, content, context, owner_token)
    VALUES ('delete', old.seq, old.key, old.content, old.context, old.owner_token);
END;

CREATE TRIGGER memory_fts_au AFTER UPDATE OF key, content, context, api_key_id ON memories
BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, key, content, context, owner_token)
    VALUES ('delete', old.seq, old.key, old.content, old.context, old.owner_token);
    INSERT INTO memory_fts (rowid, key, content, context, owner_token)
    VALUES (new.seq, new.key, new.content, new.context, new.owner_token);
END;

-- A counter per owner, bumped by every write to the owner's memories (in the same
-- transaction). Rows carry the value of their last write; deletions leave a tombstone.
CREATE TABLE owner_versions (
    api_key_id  TEXT    PRIMARY KEY,
    version     INTEGER NOT NULL
);

CREATE TABLE memory_tombstones (
    api_key_id  TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    deleted_at  INTEGER NOT NULL
);
CREATE INDEX memory_tombstones_owner ON memory_tombstones (api_key_id, version);

-- Stored settings, one JSON document per namespace ('memory', later 'qdrant').
CREATE TABLE settings (
    namespace   TEXT    PRIMARY KEY,
    value       TEXT    NOT NULL CHECK (json_valid(value)),
    updated_at  INTEGER NOT NULL
);

-- API keys of the chat proxy. Only a SHA-256 of the secret is kept.
CREATE TABLE api_keys (
    id            TEXT    PRIMARY KEY,
    name          TEXT    NOT NULL,
    prefix        TEXT    NOT NULL,
    secret_hash   TEXT    NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER,
    revoked_at    INTEGER
);

-- The vector tier's state: which embedding the stored vectors belong to.
CREATE TABLE vector_meta (
    id                   INTEGER PRIMARY KEY CHECK (id = 1),
    active_dim           INTEGER,
    embedding_signature  TEXT,
    last_reset_at        INTEGER
);
INSERT INTO vector_meta (id) VALUES (1);

-- Retrieval counters per owner, for the hit rate.
CREATE TABLE retrieval_stats (
    api_key_id  TEXT    PRIMARY KEY,
    retrievals  INTEGER NOT NULL DEFAULT 0,
    hits        INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL
);
