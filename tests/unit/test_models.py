import pytest
from pydantic import ValidationError

from engram import MemorySettings, MemorySettingsUpdate
from engram.domain.models import MemoryCreate, MemoryQuery, MemoryUpdate, RetrievalRequest, Strategy


def test_content_over_8192_characters_is_refused():
    with pytest.raises(ValidationError, match="at most 8192 characters"):
        MemoryCreate(api_key_id="k", content="a" * 8193)
    assert MemoryCreate(api_key_id="k", content="é" * 8192).content  # characters, not bytes


def test_blank_content_is_refused_and_content_is_trimmed():
    with pytest.raises(ValidationError, match="content must not be blank"):
        MemoryCreate(api_key_id="k", content="   ")
    assert MemoryCreate(api_key_id="k", content="  x  ").content == "x"


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800", "x\udfff"])
def test_content_that_cannot_be_stored_whole_is_refused(bad):
    with pytest.raises(ValidationError):
        MemoryCreate(api_key_id="k", content=bad)


def test_metadata_depth_and_json_are_checked():
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ValidationError, match="nested deeper than 32"):
        MemoryCreate(api_key_id="k", content="x", metadata=deep)
    with pytest.raises(ValidationError, match="not JSON"):
        MemoryCreate(api_key_id="k", content="x", metadata={"n": float("nan")})


def test_metadata_over_16_kib_is_refused():
    with pytest.raises(ValidationError, match="metadata is larger"):
        MemoryCreate(api_key_id="k", content="x", metadata={"blob": "a" * 16_400})


def test_metadata_must_be_an_object():
    with pytest.raises(ValidationError):
        MemoryCreate.model_validate({"apiKeyId": "k", "content": "x", "metadata": [1, 2]})


@pytest.mark.parametrize("bad", ["", " k", "a b", "k\n", "-leading", "x" * 129, "**"])
def test_api_key_ids_are_validated(bad):
    with pytest.raises(ValidationError):
        MemoryCreate(api_key_id=bad, content="x")


def test_unknown_fields_are_refused_and_camel_case_is_accepted():
    item = MemoryCreate.model_validate({"apiKeyId": "k1", "content": "x", "sessionId": "s"})
    assert item.session_id == "s"
    assert item.model_dump(mode="json")["apiKeyId"] == "k1"
    with pytest.raises(ValidationError, match="Extra inputs"):
        MemoryCreate.model_validate({"apiKeyId": "k1", "content": "x", "owner": "y"})


def test_update_needs_a_field_and_refuses_null_content():
    with pytest.raises(ValidationError, match="at least one field"):
        MemoryUpdate()
    with pytest.raises(ValidationError, match="cannot be null"):
        MemoryUpdate(content=None)
    assert MemoryUpdate(expires_at=None).model_fields_set == {"expires_at"}


def test_query_offset_wins_over_page():
    query = MemoryQuery(limit=10, page=3, offset=5)
    assert (query.effective_offset, query.effective_page) == (5, 1)
    assert MemoryQuery(limit=10, page=3).effective_offset == 20


def test_settings_defaults_follow_the_spec():
    s = MemorySettings()
    assert (s.enabled, s.max_tokens, s.retention_days, s.strategy) == (
        False,
        2000,
        30,
        Strategy.HYBRID,
    )
    assert s.static_enabled is True
    assert (s.auto_summarize, s.transformers_enabled, s.rerank_enabled) == (False, False, False)
    assert (s.embedding_source, s.vector_store, s.primary_backend) == ("auto", "auto", "libsql")


@pytest.mark.parametrize(
    ("field", "value", "stored"),
    [
        ("strategy", "recent", Strategy.EXACT),
        ("strategy", "Semantic", Strategy.SEMANTIC),
        ("strategy", "bogus", Strategy.HYBRID),
        ("vector_store", "sqlite-vec", "libsql"),
        ("max_tokens", 16_000, 16_000),
        ("retention_days", 1, 1),
    ],
)
def test_settings_are_normalised(field, value, stored):
    assert getattr(MemorySettings.model_validate({field: value}), field) == stored


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_tokens", 50_000), ("max_tokens", -5), ("retention_days", 0), ("retention_days", 9999)],
)
def test_out_of_range_settings_are_refused_not_clamped(field, value):
    with pytest.raises(ValidationError):
        MemorySettingsUpdate.model_validate({field: value})


def test_settings_update_refuses_unknown_fields_and_wrong_types():
    with pytest.raises(ValidationError, match="Extra inputs"):
        MemorySettingsUpdate.model_validate({"enabeld": True})
    with pytest.raises(ValidationError):
        MemorySettingsUpdate.model_validate({"maxTokens": "lots"})
    with pytest.raises(ValidationError):
        MemorySettingsUpdate.model_validate({"maxTokens": True})
    for floor in (False, "0.5"):  # JSON numbers only: pydantic would read false as 0.0
        with pytest.raises(ValidationError, match="JSON number"):
            MemorySettingsUpdate.model_validate({"relevanceFloor": floor})
        with pytest.raises(ValidationError, match="JSON number"):
            RetrievalRequest.model_validate({"relevanceFloor": floor})
    assert RetrievalRequest.model_validate({"relevanceFloor": 1}).relevance_floor == 1.0
    with pytest.raises(ValidationError):
        MemorySettingsUpdate.model_validate({"vectorStore": "pinecone"})


def test_trusted_models_are_what_model_construct_makes():
    """The fast path for rows read back builds the model ``model_construct`` builds:
    equal, same fields set, same JSON; values it cannot take go the general way."""
    from datetime import UTC, datetime

    from engram.domain.models import Memory, MemoryType, RetrievedMemory
    from engram.domain.models.trusted import trusted

    now = datetime(2026, 1, 2, tzinfo=UTC)
    values = {
        "id": "m1",
        "api_key_id": "k1",
        "session_id": None,
        "type": MemoryType("semantic"),
        "key": "fact:a",
        "content": "likes tea",
        "metadata": {"subject": "drink"},
        "created_at": now,
        "updated_at": now,
        "expires_at": None,
    }
    memory = trusted(Memory, dict(values))
    expected = Memory.model_construct(**values)
    assert memory == expected
    assert memory.model_fields_set == expected.model_fields_set
    assert memory.model_dump_json() == expected.model_dump_json()
    wider = {**values, "score": 1.0, "tier": "hybrid", "tokens": 3}
    wider |= {"fts_score": None, "vec_score": 0.5, "keyword_coverage": 1.0}
    retrieved = trusted(RetrievedMemory, dict(wider))
    assert retrieved.model_dump_json() == RetrievedMemory.model_construct(**wider).model_dump_json()
    partial = trusted(RetrievedMemory, dict(values))  # no score: model_construct's defaults
    assert partial == RetrievedMemory.model_construct(**values)
    shuffled = trusted(Memory, dict(reversed(values.items())))  # the declared order kept
    assert shuffled.model_dump_json() == expected.model_dump_json()
