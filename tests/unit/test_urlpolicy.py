import re
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engram import InvalidInputError, MemorySettingsUpdate
from engram.domain.models.hosts import HOST_PATTERN
from engram.domain.models.qdrant import QdrantSettingsUpdate
from engram.domain.urlpolicy import check_endpoint_url, check_host, resolve_allowed, same_origin


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        ("https://api.openai.com/v1/", "https://api.openai.com/v1"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("https://embeddings.internal.example:8443", "https://embeddings.internal.example:8443"),
    ],
)
def test_accepted_urls(url, normalised):
    assert check_endpoint_url(url) == normalised


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/v1", "http or https"),
        ("file:///etc/passwd", "http or https"),
        ("https://user:secret@example.com/v1", "credentials"),
        ("https://example.com/v1?key=abc", "query string"),
        ("https://example.com/v1#x", "query string"),
        ("http://169.254.169.254/latest/meta-data", "metadata"),
        ("http://169.254.170.2/v2/credentials", "metadata"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://100.100.100.200/latest", "metadata"),
        ("http://metadata.google.internal/computeMetadata/v1", "metadata"),
        ("http://[fe80::1]/", "metadata"),
        # the same addresses in other spellings
        ("http://[::ffff:169.254.169.254]/", "metadata"),
        ("http://[::ffff:a9fe:a9fe]/", "metadata"),
        ("http://[64:ff9b::a9fe:a9fe]/", "metadata"),
        ("http://[64:ff9b:1::a9fe:a9fe]/", "metadata"),
        ("http://[2002:a9fe:a9fe::1]/", "metadata"),
        ("http://2852039166/", "metadata"),
        ("http://0xa9fea9fe/", "metadata"),
        ("http://0251.0376.0251.0376/", "metadata"),
        ("http://169.254.43518/", "metadata"),
        ("https://", "no host"),
        ("http://example.com:99999/", "not a valid URL"),
    ],
)
def test_refused_urls(url, why):
    with pytest.raises(InvalidInputError, match=why):
        check_endpoint_url(url)


def test_settings_refuse_an_unsafe_custom_base_url():
    with pytest.raises(ValidationError, match="metadata"):
        MemorySettingsUpdate(custom_base_url="http://169.254.169.254/")
    assert MemorySettingsUpdate(custom_base_url="").custom_base_url is None
    assert MemorySettingsUpdate(custom_base_url="https://x.io/v1/").custom_base_url == (
        "https://x.io/v1"
    )


def test_names_are_checked_on_every_address_they_resolve_to(monkeypatch):
    """A name resolving to a metadata address anywhere in its answer is refused (and the
    transport connects only to the addresses this returned: no second lookup)."""
    import socket

    answers = {
        "good.example": ["93.184.216.34"],
        "rebind.example": ["93.184.216.34", "169.254.169.254"],
        "mapped.example": ["::ffff:169.254.169.254"],
    }

    def fake_getaddrinfo(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert resolve_allowed("good.example", 443) == ["93.184.216.34"]
    for host in ("rebind.example", "mapped.example"):
        with pytest.raises(InvalidInputError, match="metadata"):
            resolve_allowed(host, 443)
    with pytest.raises(InvalidInputError, match="metadata"):
        resolve_allowed("0xa9fea9fe", 80)


def test_same_origin():
    assert same_origin("https://api.openai.com/v1", "https://API.openai.com:443/other")
    assert not same_origin("https://api.openai.com/v1", "http://api.openai.com/v1")
    assert not same_origin("https://evil.example/v1", "https://api.openai.com/v1")
    assert not same_origin("https://api.openai.com:8443/v1", "https://api.openai.com/v1")
    assert not same_origin("https://api.openai.com/v1", None)


# The schema states the Qdrant host that the policy accepts: a client writing a
# schema-valid host is not refused (the contract fuzzer checks this from outside).
_METADATA_NAMES = {"metadata", "instance-data"}


@settings(max_examples=400, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.from_regex(HOST_PATTERN, fullmatch=True).filter(lambda h: len(h) <= 253))
def test_a_schema_valid_host_is_accepted(host):
    if host.lower().rstrip(".") in _METADATA_NAMES:
        return
    assert QdrantSettingsUpdate(host=host).host == check_host(host)


@settings(max_examples=300, deadline=None)
@given(st.ip_addresses(v=6))
def test_the_host_pattern_matches_every_ipv6_spelling_the_policy_accepts(address):
    for spelling in (str(address), address.exploded, f"[{address}]"):
        matched = re.fullmatch(HOST_PATTERN, spelling) is not None
        try:
            check_host(spelling)
            accepted = True
        except InvalidInputError:
            accepted = False
        assert matched == accepted, spelling


@pytest.mark.parametrize(
    "host", ["]", ".", "a..b", "[::1", "::::", "1:2", "-a", "a" * 64, "fe80::1"]
)
def test_hosts_the_policy_refuses_are_outside_the_schema(host):
    assert re.fullmatch(HOST_PATTERN, host) is None
    with pytest.raises(ValidationError):
        QdrantSettingsUpdate(host=host)


def test_a_credential_outside_the_schema_is_refused_and_inside_accepted():
    assert re.fullmatch(r"^[!-~]*$", "sk-abc_123") is not None
    assert QdrantSettingsUpdate(api_key="sk-abc_123").api_key == "sk-abc_123"
    for key in ("sk abc", "sk-é", "sk-\x00"):
        with pytest.raises(ValidationError, match="printable ASCII"):
            QdrantSettingsUpdate(api_key=key)


# The same for the endpoint URLs of the memory settings (remote embedder, LLM extractor):
# the pattern the schema publishes is the one generated from here.
_ENDPOINT_SCHEMA = MemorySettingsUpdate.model_json_schema(by_alias=True)["properties"][
    "customBaseUrl"
]["anyOf"][0]


def _url_host(url: str) -> str:
    return (urlsplit(url.strip()).hostname or "").rstrip(".")


@settings(max_examples=400, suppress_health_check=list(HealthCheck), deadline=None)
@given(
    st.from_regex(_ENDPOINT_SCHEMA["pattern"], fullmatch=True).filter(
        lambda u: len(u) <= _ENDPOINT_SCHEMA["maxLength"] and len(_url_host(u)) <= 253
    )
)
def test_a_schema_valid_endpoint_url_is_accepted(url):
    if _url_host(url).lower() in _METADATA_NAMES:
        return
    stored = MemorySettingsUpdate(custom_base_url=url).custom_base_url
    assert stored is None if not url.strip() else stored == check_endpoint_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "\x0bhttps://-DV ",  # a label may not start with "-"
        "http://a..b/",
        "http://" + "a" * 64 + "/v1",
        "http://[fe80::1]/",
        "ftp://example.com",
        "http://example.com/v1?key=1",
    ],
)
def test_endpoint_urls_the_policy_refuses_are_outside_the_schema(url):
    assert re.fullmatch(_ENDPOINT_SCHEMA["pattern"], url) is None
    with pytest.raises(ValidationError):
        MemorySettingsUpdate(custom_base_url=url)
