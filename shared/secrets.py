"""Secrets read at run time with Powertools Parameters, never from plain environment
variables of the deployed template.

The template gives each function the *references* of its secrets
(``ENGRAM_*_SECRET``: a Secrets Manager secret ARN or name, an SSM SecureString
parameter ARN or ``/path``) and an IAM policy for exactly those ARNs. At start-up the
values are fetched into the one ``Config`` (``SecretStr``: never logged or echoed).
Powertools caches each value for ``MAX_AGE_S``, so instances that start after a rotation
get the new value without a redeploy. Locally the plain variables
(``ENGRAM_ADMIN_TOKEN``...) still work and win over a reference: nothing is fetched.
"""

from __future__ import annotations

from pydantic import SecretStr

from engram import Config, load_config
from engram.domain.errors import ConfigError

__all__ = ["MAX_AGE_S", "SECRET_FIELDS", "load_runtime_config", "resolve_secrets"]

MAX_AGE_S = 300
# The field a secret's value goes into -> the field holding its reference.
SECRET_FIELDS = {
    "db_auth_token": "db_auth_token_secret",
    "admin_token": "admin_token_secret",
    "upstream_api_key": "upstream_api_key_secret",
    "embedding_api_key": "embedding_api_key_secret",
    "extractor_api_key": "extractor_api_key_secret",
    "secrets_key": "secrets_key_secret",
}


def _is_ssm(reference: str) -> bool:
    return reference.startswith("/") or (reference.startswith("arn:") and ":ssm:" in reference)


def _fetch(reference: str) -> str:
    # Imported here: boto3 comes with the Lambda runtime; local runs never get this far.
    from aws_lambda_powertools.utilities import parameters

    if _is_ssm(reference):
        value = parameters.get_parameter(reference, decrypt=True, max_age=MAX_AGE_S)
    else:
        value = parameters.get_secret(reference, max_age=MAX_AGE_S)
    return value.decode() if isinstance(value, bytes) else str(value)


def resolve_secrets(config: Config) -> Config:
    """``config`` with each referenced secret read into its field (cached)."""
    updates = {}
    for field, reference_field in SECRET_FIELDS.items():
        reference = getattr(config, reference_field)
        if not reference or getattr(config, field) is not None:
            continue
        variable = Config.model_fields[reference_field].alias
        try:
            updates[field] = SecretStr(_fetch(reference))
        except Exception as exc:  # the SDK's errors may quote the request; name the variable
            raise ConfigError(
                f"could not read the secret {variable} names ({type(exc).__name__})"
            ) from None
    return config.model_copy(update=updates) if updates else config


def load_runtime_config() -> Config:
    """The environment's configuration with its secrets: what every function starts with."""
    return resolve_secrets(load_config())
