"""Secrets read at run time with Powertools Parameters (Secrets Manager, SSM SecureString)
on moto, never resolved into the deployed template's environment variables."""

from __future__ import annotations

import json

import boto3
import pytest
from aws_lambda_powertools.utilities import parameters
from moto import mock_aws

from engram import Config, reset_engines
from engram.domain.errors import ConfigError
from shared.devtools.template import load_template
from shared.secrets import SECRET_FIELDS, load_runtime_config, resolve_secrets
from tests.support.http import ADMIN_TOKEN
from tests.support.lambda_support import LambdaContext, load_event, load_function

TEMPLATE = load_template()
FUNCTIONS = TEMPLATE.functions()
VALUE_VARIABLES = {Config.model_fields[f].alias for f in SECRET_FIELDS}  # ENGRAM_ADMIN_TOKEN...
REFERENCE_VARIABLES = {Config.model_fields[f].alias for f in SECRET_FIELDS.values()}


@pytest.fixture
def aws(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    for variable in VALUE_VARIABLES | REFERENCE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    parameters.clear_caches()
    with mock_aws():
        yield boto3.client("secretsmanager"), boto3.client("ssm")
    parameters.clear_caches()


def test_the_template_puts_no_secret_in_an_environment_variable():
    for logical_id, function in FUNCTIONS.items():
        environment = function.environment
        assert not VALUE_VARIABLES & set(environment), logical_id
        assert "resolve:" not in json.dumps(environment), logical_id
        assert "{{resolve" not in (TEMPLATE.root / "template.yaml").read_text()


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_each_function_may_read_exactly_the_secrets_it_names(logical_id):
    function = FUNCTIONS[logical_id]
    named = {
        value["Ref"]
        for name, value in function.environment.items()
        if name in REFERENCE_VARIABLES and value != ""  # "" unsets a Globals reference
    }
    statements = [
        statement
        for policy in function.properties["Policies"]
        if isinstance(policy, dict) and "Statement" in policy
        for statement in policy["Statement"]
    ]
    readable = {
        resource["Ref"] if "Ref" in resource else resource["Fn::If"][1]["Ref"]
        for statement in statements
        if "secretsmanager:GetSecretValue" in statement["Action"]
        for resource in statement["Resource"]
    }
    assert readable == named
    assert all(
        s["Action"] == ["secretsmanager:GetSecretValue", "ssm:GetParameter"] for s in statements
    )
    # The admin token only where the management API is served, and at its gate.
    assert ("AdminTokenSecret" in named) == (
        logical_id in ("MemoryApiFunction", "RetrievePreviewFunction", "ApiAuthorizerFunction")
    )


def test_secrets_manager_and_ssm_values_are_read_into_the_config(aws):
    secrets, ssm = aws
    admin = secrets.create_secret(Name="engram/dev/admin", SecretString="from-secrets-manager")
    ssm.put_parameter(Name="/engram/dev/upstream", Value="from-ssm", Type="SecureString")
    config = resolve_secrets(
        Config(
            db_url="file:x.db",
            admin_token_secret=admin["ARN"],
            upstream_api_key_secret="/engram/dev/upstream",
        )
    )
    assert config.admin_token.get_secret_value() == "from-secrets-manager"
    assert config.upstream_api_key.get_secret_value() == "from-ssm"
    assert config.db_auth_token is None  # no reference, nothing read
    assert "from-secrets-manager" not in repr(config)


def test_values_are_cached_between_cold_starts_of_one_instance(aws):
    secrets, _ = aws
    arn = secrets.create_secret(Name="engram/dev/db", SecretString="first")["ARN"]
    reference = Config(db_url="file:x.db", db_auth_token_secret=arn)
    assert resolve_secrets(reference).db_auth_token.get_secret_value() == "first"
    secrets.put_secret_value(SecretId=arn, SecretString="rotated")
    assert resolve_secrets(reference).db_auth_token.get_secret_value() == "first"  # cached
    parameters.clear_caches()  # what max_age does after MAX_AGE_S
    assert resolve_secrets(reference).db_auth_token.get_secret_value() == "rotated"


def test_a_plain_variable_wins_and_nothing_is_fetched(aws, monkeypatch):
    """Locally ENGRAM_ADMIN_TOKEN still works; a reference to a missing secret beside it
    would fail if it were read."""
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN", "local-token")
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN_SECRET", "engram/dev/does-not-exist")
    monkeypatch.setenv("ENGRAM_DB_URL", "file:x.db")
    assert load_runtime_config().admin_token.get_secret_value() == "local-token"


def test_a_missing_secret_fails_start_up_naming_the_variable(aws):
    with pytest.raises(ConfigError, match="ENGRAM_UPSTREAM_API_KEY_SECRET") as raised:
        resolve_secrets(Config(db_url="file:x.db", upstream_api_key_secret="engram/missing"))
    assert "engram/missing" not in str(raised.value)


def test_the_memory_api_authenticates_with_the_token_read_at_run_time(aws, monkeypatch, db_path):
    secrets, _ = aws
    arn = secrets.create_secret(Name="engram/dev/admin", SecretString=ADMIN_TOKEN)["ARN"]
    monkeypatch.setenv("ENGRAM_DB_URL", f"file:{db_path}")
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN_SECRET", arn)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "engram-test")
    reset_engines()
    try:
        handler = load_function("memory_api").handler
        assert handler(load_event("memory_api_list"), LambdaContext())["statusCode"] == 200
        secrets.put_secret_value(SecretId=arn, SecretString="another-token")
        parameters.clear_caches()
        cold = load_function("memory_api").handler  # a new instance reads the new value
        assert cold(load_event("memory_api_list"), LambdaContext())["statusCode"] == 401
    finally:
        reset_engines()


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_each_function_may_decrypt_its_secrets_only_under_the_given_key_and_through_them(
    logical_id,
):
    """kms:Decrypt only when the secrets use a customer managed key, on that key, and
    only through Secrets Manager or SSM (never a direct decrypt of anything else)."""
    (conditional,) = [
        policy["Fn::If"]
        for policy in FUNCTIONS[logical_id].properties["Policies"]
        if isinstance(policy, dict) and "Fn::If" in policy
    ]
    condition, granted, absent = conditional
    assert condition == "WithSecretsKmsKey" and absent == {"Ref": "AWS::NoValue"}
    (statement,) = granted["Statement"]
    assert statement["Action"] == "kms:Decrypt"
    assert statement["Resource"] == {"Ref": "SecretsKmsKeyArn"}
    services = statement["Condition"]["StringLike"]["kms:ViaService"]
    assert services == [
        {"Fn::Sub": "secretsmanager.${AWS::Region}.amazonaws.com"},
        {"Fn::Sub": "ssm.${AWS::Region}.amazonaws.com"},
    ]
