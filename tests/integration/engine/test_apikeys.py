from datetime import timedelta

from engram.domain.models import ApiKeyCreate


def test_secret_is_shown_once_and_never_stored(engine, db):
    created = engine.keys.create(ApiKeyCreate(name="laptop"))
    assert created.secret.startswith("egm_") and len(created.secret) > 40
    assert created.secret.startswith(created.prefix)
    listed = engine.keys.all()
    assert [k.id for k in listed] == [created.id]
    assert "secret" not in listed[0].model_dump()
    dump = "\n".join(str(row) for row in db.query("SELECT * FROM api_keys"))
    assert created.secret not in dump


def test_authenticate_revoke_and_unknown(engine, clock):
    created = engine.keys.create(ApiKeyCreate(name="ci"))
    key = engine.keys.authenticate(created.secret)
    assert key.id == created.id and key.last_used_at == clock.now
    assert engine.keys.authenticate(created.secret + "x") is None
    assert engine.keys.authenticate("egm_unknown") is None
    assert engine.keys.authenticate("") is None
    revoked = engine.keys.revoke(created.id)
    assert revoked.revoked_at == clock.now
    assert engine.keys.authenticate(created.secret) is None
    clock.advance(minutes=1)
    assert engine.keys.revoke(created.id).revoked_at == revoked.revoked_at  # idempotent
    assert engine.keys.revoke("key_missing") is None


def test_last_used_is_written_at_most_once_a_minute(engine, clock):
    created = engine.keys.create(ApiKeyCreate())
    first = engine.keys.authenticate(created.secret).last_used_at
    clock.advance(seconds=30)
    assert engine.keys.authenticate(created.secret).last_used_at == first
    clock.advance(seconds=31)
    assert engine.keys.authenticate(created.secret).last_used_at == first + timedelta(seconds=61)
