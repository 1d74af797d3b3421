-- Indexes for the reads every retrieval and every list page makes.
--
-- Newest first with a tie-break: `ORDER BY updated_at DESC, seq DESC` (and created_at
-- for list pages). `seq` is the rowid, which ends every index entry in ascending order,
-- so an index declared `updated_at DESC` yields ties in ascending seq and SQLite sorts
-- every tie in a temporary B-tree; an import gives thousands of rows one timestamp
-- (~2 ms for the 20 most recent of 1,000). Declared ascending, the index read
-- backwards gives exactly (updated_at DESC, seq DESC): no sort.
DROP INDEX memories_owner_updated;
CREATE INDEX memories_owner_updated ON memories (api_key_id, updated_at);
DROP INDEX memories_owner_created;
CREATE INDEX memories_owner_created ON memories (api_key_id, created_at);
DROP INDEX memories_owner_session;
CREATE INDEX memories_owner_session ON memories (api_key_id, session_id, updated_at);

-- Standing instructions ("keep answers under 200 words") are read with every retrieval.
-- Without this index the owner's rows are walked newest first until ten instructions
-- turn up: all of them when the owner has fewer, at 10,000 memories ~20 ms a query.
-- The partial index holds the instructions alone; the WHERE below must stay word for
-- word the query's condition (adapters/libsql/search.py) for the planner to use it.
CREATE INDEX memories_owner_instructions ON memories (api_key_id, updated_at)
    WHERE json_extract(metadata, '$.category') = 'instruction';
