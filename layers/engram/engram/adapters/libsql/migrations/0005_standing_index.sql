-- Standing instructions ("keep answers under 200 words") are read with every retrieval.
-- Without this index the owner's rows are walked newest first until ten instructions
-- turn up: all of them when the owner has fewer, at 10,000 memories ~20 ms a query.
-- The partial index holds the instructions alone; the WHERE below must stay word for
-- word the query's condition (adapters/libsql/search.py) for the planner to use it.
CREATE INDEX memories_owner_instructions ON memories (api_key_id, updated_at DESC)
    WHERE json_extract(metadata, '$.category') = 'instruction';
