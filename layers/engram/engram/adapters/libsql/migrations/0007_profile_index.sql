-- The profile (models/profile.py) is read with every retrieval: identity, health, home,
-- family, pets and standing instructions as states (undated), and any memory pinned.
-- It replaces the standing instructions' index: they are part of the profile now.
-- The WHERE below must stay word for word PROFILE_SQL (adapters/libsql/profile.py, with
-- the table alias left out) for the planner to use the index; a test checks the plan.
DROP INDEX IF EXISTS memories_owner_instructions;
CREATE INDEX memories_owner_profile ON memories (api_key_id, updated_at)
    WHERE (json_type(metadata, '$.pinned') IS 'true' OR (json_extract(metadata, '$.category') IN ('family', 'health', 'home', 'identity', 'instruction', 'pet') AND json_type(metadata, '$.pinned') IS NOT 'false' AND json_extract(metadata, '$.source') IS NOT 'assistant' AND json_type(metadata, '$.when') IS NULL));
