"""Secret-shaped values are replaced; ordinary text (names, words, hashes, ids) is not."""

from __future__ import annotations

import pytest

from engram.domain.redaction import REDACTED, contains_secret, redact, redact_value

SECRETS = [
    # provider keys by their shape
    ("our key is sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK", "sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwx is the Anthropic one", "sk-ant-api03-abcdefghijklmnop"),
    ("charge with sk_live_51HxYzAbCdEfGhIjKlMnOpQr please", "sk_live_51HxYzAbCdEfGhIjKlMnOpQr"),
    ("AKIAIOSFODNN7EXAMPLE is the access key id", "AKIAIOSFODNN7EXAMPLE"),
    (
        "push with ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    ),
    ("slack xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF"),
    ("SG.gFiYOGWUvxngTw7LpTLapG.srqc1bRW4OavwLNm07M8Enj7VG", "SG.gFiYOGWUvxngTw7LpTLapG"),
    (
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P",
        "eyJhbGciOiJIUzI1NiJ9",
    ),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----", "MIIEvQIBADANBg"),
    # values introduced as secrets
    ("my password is hunter2", "hunter2"),
    ("the root password on that box is z4fMz&1-dJXM, sadly", "z4fMz&1-dJXM"),
    ("api_key=abc123def456", "abc123def456"),
    ("DOPPLER_TOKEN=dp.st.prd.IeHXo6M3lSiM2CYXb5QMr", "IeHXo6M3lSiM2CYXb5QMr"),
    ("AccountName=acme;AccountKey=Qcamgo9GnFdopb6P1B39/KHto11", "Qcamgo9GnFdopb6P1B39"),
    ("postgres://app:s3cr3tpass@db.internal:5432/prod", "s3cr3tpass"),
    ("My bank card PIN is 4827 so", "4827"),
    ("the login is admin / Tr0mb0ne!River at home", "Tr0mb0ne!River"),
    (
        "the account SID is AC92c7ce5672911f2d4516ea88356caf12.",
        "AC92c7ce5672911f2d4516ea88356caf12",
    ),
    # passwords in other spellings and languages (issue 33)
    ("pw=hunter2 for the router", "hunter2"),
    ("wifi pw: Kedi2024x", "Kedi2024x"),
    ("the p@ssword is Tr0ub4dor", "Tr0ub4dor"),
    ("kata sandi saya adalah rahasia123", "rahasia123"),
    ("şifrem 4581qwe, unutma", "4581qwe"),
    ("parolam: Kedi2024", "Kedi2024"),
    ("Passwort: Geheim99", "Geheim99"),
    # card numbers (issuer prefix and Luhn), IBANs (mod 97), national identity numbers
    ("my card is 4111 1111 1111 1111, expiring 12/28", "4111 1111 1111 1111"),
    ("Mastercard 5500-0000-0000-0004 was charged", "5500-0000-0000-0004"),
    ("the amex 378282246310005 is the company one", "378282246310005"),
    ("pay to IBAN DE89 3704 0044 0532 0130 00 by Friday", "DE89 3704 0044 0532 0130 00"),
    ("gb82west12345698765432 is my account", "gb82west12345698765432"),
    ("Hesap: TR33 0006 1005 1978 6457 8413 26", "TR33 0006 1005 1978 6457 8413 26"),
    ("my SSN is 123-45-6789", "123-45-6789"),
    ("social security number 078 05 1120", "078 05 1120"),
    ("NI number AB 12 34 56 C", "AB 12 34 56 C"),
    ("TC kimlik numaram 10000000146", "10000000146"),
    ("NIK saya 3171234567890001", "3171234567890001"),
    ("passport number X1234567 expires soon", "X1234567"),
    # a random token of no known vendor
    ("use 9fQ2xLmP7vRt3ZkWb8NcY4Hs6DgJ1aUe as the header", "9fQ2xLmP7vRt3ZkWb8NcY4Hs6DgJ1aUe"),
]

NOT_SECRETS = [
    "Every page has to pass WCAG AA.",  # "pass" is a verb before an acronym
    "It has to pass QA first.",
    "I prefer TypeScript. I'll use Postgres for this project.",
    "The password is wrong, it says it expired yesterday.",
    "The key is to keep answers short.",
    "We keep all our credentials in HashiCorp Vault.",
    "My token refresh logic retries twice.",
    "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b2c3d4e5f broke the build",
    "memory 5a8f2c1e-9b3d-4e7a-8c6f-1d2e3f4a5b6c was deleted",
    "See https://docs.python.org/3/library/re.html for the syntax.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "The secret to good pasta is salt.",
    # numbers that are not identifiers: a failed check digit, phones, dates, amounts
    "order number 4111111111111112 shipped",  # Luhn fails
    "GB82 WEST 1234 5698 7654 31 is a typo'd IBAN",  # mod 97 fails
    "call me at +44 7911 123456 after six",
    "my number is 0812 3456 7890",
    "I ran 5000 meters in 2023 and paid 1234.56 for the shoes",
    "the build 1700000000000 finished; version 1.12.123456789012",
    "12345678901 is not a valid TC number",  # check digits fail
    "Every page has to pass WCAG AA, pw or not.",
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secrets_are_replaced(text, secret):
    clean = redact(text)
    assert secret not in clean
    assert REDACTED in clean
    assert contains_secret(text)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_untouched(text):
    assert redact(text) == text
    assert not contains_secret(text)


def test_the_sentence_around_a_secret_stays_readable():
    assert redact("We use the key sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK for CI.") == (
        "We use the key [REDACTED] for CI."
    )


def test_json_values_and_keys_are_redacted_all_the_way_down():
    value = {"note": "password: hunter22", "nested": [{"sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK": 1}]}
    clean = redact_value(value)
    assert "hunter22" not in str(clean) and "sk-proj-4fJ9" not in str(clean)
    assert clean["nested"][0] == {REDACTED: 1}


def test_redacting_twice_changes_nothing_more():
    once = redact("password is hunter2 and key sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK")
    assert redact(once) == once
