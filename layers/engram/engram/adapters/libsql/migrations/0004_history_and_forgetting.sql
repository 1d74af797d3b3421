-- Facts retired by a later statement (a correction, a switch, a negation) move here:
-- never retrieved or injected, still visible as the history of what replaced them.
-- `created_at` is when the fact was first stated (its validFrom), `valid_to` when it
-- was retired; `superseded_by` names the memory that replaced it (NULL when it was
-- only withdrawn: "I no longer use Python").
CREATE TABLE memory_history (
    id             TEXT    NOT NULL PRIMARY KEY,
    api_key_id     TEXT    NOT NULL,
    session_id     TEXT,
    type           TEXT    NOT NULL,
    key            TEXT    NOT NULL,
    content        TEXT    NOT NULL,
    metadata       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    valid_to       INTEGER NOT NULL,
    superseded_by  TEXT,
    reason         TEXT    NOT NULL CHECK (reason IN ('superseded', 'withdrawn'))
);
CREATE INDEX memory_history_owner_key ON memory_history (api_key_id, key, valid_to);
CREATE INDEX memory_history_owner_successor ON memory_history (api_key_id, superseded_by);
CREATE INDEX memory_history_owner_time ON memory_history (api_key_id, valid_to);
