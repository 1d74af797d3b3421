import pytest
from pydantic import ValidationError

from engram import InvalidInputError, MemorySettingsUpdate
from engram.urlpolicy import check_endpoint_url


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
