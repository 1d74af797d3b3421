"""The one settings object: read from the environment once, refused when wrong."""

import pytest

from engram import Config, ConfigError, load_config


def test_defaults_need_no_environment(monkeypatch):
    monkeypatch.delenv("ENGRAM_DB_URL", raising=False)
    assert load_config().db_url == "file:.engram/engram.db"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ENGRAM_DB_CACHE_MB", "lots"),
        ("ENGRAM_DB_CACHE_MB", "1"),
        ("MEMORY_VEC_QUANTIZATION", "int4"),
        ("ENGRAM_UPSTREAM_TIMEOUT_S", "-3"),
        ("MEMORY_RRF_K", "0"),
        ("ENGRAM_KEYWORD_CACHE_MB", "-1"),
        ("ENGRAM_KEYWORD_CACHE_MB", "many"),
    ],
)
def test_bad_values_are_refused_naming_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as refused:
        load_config()
    assert name in refused.value.message
    assert refused.value.message.startswith("invalid configuration:")


def test_secrets_are_not_repeated_in_the_message(monkeypatch):
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN", "s3cret-admin")
    monkeypatch.setenv("ENGRAM_DB_CACHE_MB", "s3cret-db")
    with pytest.raises(ConfigError) as refused:
        load_config()
    assert "s3cret" not in refused.value.message


def test_lambda_is_recognised_from_the_runtime_variable(monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "engram-chat")
    assert load_config().in_lambda
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
    assert not Config().in_lambda
