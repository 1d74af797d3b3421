-- Tokens the LLM extractor spent per API key per UTC day (settings extractorDailyTokens).
-- One row per key and day; the cleanup schedule deletes old days with the other bookkeeping.
CREATE TABLE extractor_usage (
    api_key_id  TEXT    NOT NULL,
    day         TEXT    NOT NULL,
    tokens      INTEGER NOT NULL DEFAULT 0,
    calls       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (api_key_id, day)
);
