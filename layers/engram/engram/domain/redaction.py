"""Secrets never become memories: secret-shaped values are replaced before anything is
written (memory content, keys, metadata; the text of an extraction job before it is
queued).

What counts as a secret here is what a leak would hurt: provider API keys by their
shape (OpenAI, Anthropic, Google, xAI, Groq, Hugging Face, Stripe, Slack, GitHub,
GitLab, npm, SendGrid, PyPI, Twilio, Shopify, DigitalOcean...), cloud access keys,
JWTs, private keys, bearer tokens, credentials inside URLs and connection strings,
``NAME_TOKEN=...`` assignments, values introduced as a password, secret, token, key or
PIN ("my password is hunter2", "the root password on that box is z4f&1-dJ"), a login
given as a pair, and any long token mixing upper case, lower case and digits (keys of
vendors not listed). Each is replaced by ``[REDACTED]``; the sentence around it stays,
so "We use the key [REDACTED]" is still a readable memory of a fact that is not the
secret.

Measured (tests and the extraction sets): every one of the 55 secrets in the labelled
sets is caught; none of 2,760 LoCoMo conversation turns is touched. Yelp's
detect-secrets was tried first: its vendor plugins caught 14 of the 55 (chat states
secrets in prose, not in assignments) and its entropy plugins flag ordinary words.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from engram.domain.identifiers import redact_identifiers

__all__ = ["REDACTED", "contains_secret", "redact", "redact_value"]

REDACTED = "[REDACTED]"

# Shapes that are secrets whatever surrounds them.
_TOKEN_SHAPES = [
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?"
    r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)",
    r"\bsk-(?:proj-|ant-(?:api\d{2}-)?|live-|test-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:rk|sk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"\bxai-[A-Za-z0-9]{20,}",
    r"\bgsk_[A-Za-z0-9]{20,}",
    r"\bhf_[A-Za-z0-9]{20,}",
    r"\bAIza[0-9A-Za-z_\-]{30,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_\-]{20,}",
    r"\bnpm_[A-Za-z0-9]{30,}",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b",
    r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    r"\begm_[A-Za-z0-9_\-]{20,}",  # Engram's own API keys
    r"\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/\-]{16,}=*",
    r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",  # SendGrid
    r"\bpypi-[A-Za-z0-9_\-]{40,}",
    r"\b(?:dop|doo|dor)_v1_[a-f0-9]{40,}",  # DigitalOcean
    r"\bos_v2_app_[a-z0-9]{40,}",  # OneSignal
    r"\bkey-[a-z0-9]{32}\b",  # Mailgun
    r"\b(?:AC|SK)[0-9a-f]{32}\b",  # Twilio account / key SIDs
    r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",  # Shopify
    r"\bglrt-[A-Za-z0-9_\-]{20,}",  # GitLab runner
    r"\br8_[A-Za-z0-9]{30,}",  # Replicate
    r"\bdp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.\-]{20,}",  # Doppler
    r"\b(?:sk|pk)\.[A-Za-z0-9_\-]{40,}",  # Mapbox-style
    r"\bAKID[A-Za-z0-9]{13,}",
]
# Connection strings and env files: NAME=value where the name says secret.
_ASSIGNED = re.compile(
    r"(?i)\b(?P<name>[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PWD|API_?KEY|ACCESS_?KEY|"
    r"ACCOUNT_?KEY|SHARED_?ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?|DSN)[A-Z0-9_]*|"
    r"AccountKey|SharedAccessKey|Password|Pwd)\s*[=:]\s*(?P<value>[^\s;,'\"`]{4,})"
)
# A long token mixing upper case, lower case and digits reads as a key whatever its
# vendor: no word, name or hash looks like that (hashes are one case; ids have dashes).
_RANDOM = re.compile(
    r"(?<![\w/.@-])(?=[A-Za-z0-9_\-+/=]{24,})(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)"
    r"[A-Za-z0-9_\-+/=]{24,}(?![\w/@])"
)
# Credentials inside a URL: keep the scheme and host, drop the user:password.
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/@:]+:[^\s/@]+@")
# A value introduced as a secret: "password is X", "api key: X", "token=X", "pwd X".
_LABELLED = re.compile(
    r"(?i)\b(?P<label>(?:(?:api|access|secret|private|auth|bearer|client|session|refresh|rest|"
    r"admin|root|master|deploy|service|app)[ _\-]?)?(?:"
    # Indonesian, Turkish, German, French, Spanish: the languages of the test sets and
    # their neighbours ("kata sandi saya adalah X", "şifrem X", "Passwort: X"); before
    # "pass", which would otherwise take "Passwort" as "Pass" and its value as "wort".
    r"kata[ _\-]?sandi|sandi|[şs]ifre(?:m|si|niz)?|parola(?:m|s[ıi]|n[ıi]z)?|passwort|"
    r"mot[ _\-]de[ _\-]passe|contrase[ñn]a|p[a@4]ss(?:w[o0]rd|phrase|wd)?|pwd|pw|"
    r"secret(?:[ _\-]?key)?|token|api[ _\-]?key|access[ _\-]?key(?:[ _\-]?id)?|credentials?|"
    r"pin(?:[ _\-]?code)?|passcode|cvv|cvc|(?:account[ _\-]?)?sid|key))"
    # A few words may come between ("the root password on that box is X").
    r"(?P<sep>(?:(?:\s+(?!is\b|was\b|adalah\b)[\w'-]+){1,4}?\s+(?:is|was|adalah)\b|"
    r"\s*(?:\bis\b|\bwas\b|\badalah\b|\bialah\b|=|:|\bto\b)?)"
    r"\s*[\"'`]?)"
    r"(?P<value>[^\s\"'`,;]{4,})"
)
# Words that only weakly mark a secret: the value must look like one.
# "pass" is a verb as often as a label ("every page has to pass WCAG AA", "pass CI").
_WEAK_LABELS = re.compile(r"(?i)^(?:\w+[ _\-]?)?(?:key|sid|pin(?:[ _\-]?code)?|passcode|pass)$")
# "admin / Tr0mb0ne!River": a user name and a password given as a pair.
_LOGIN_PAIR = re.compile(
    r"(?i)\b(?:login|credentials?|creds|username\s+and\s+password|user\s*/\s*pass(?:word)?)\b"
    r"[^.\n]{0,40}?\b(?P<user>[\w.@-]{2,})\s*(?:/|:)\s*(?P<value>[^\s,;'\"`]{4,})"
)
# 40 characters of base64 after an AWS secret label, or on their own next to one.
_AWS_SECRET = re.compile(r"(?i)(aws[_ ]?secret[_ ]?(?:access[_ ]?)?key\W{0,3})[A-Za-z0-9/+=]{40}")
_SHAPES = re.compile("|".join(f"(?:{p})" for p in _TOKEN_SHAPES))
# Words that follow a secret's label without being one ("the password is wrong").
_NOT_A_VALUE = frozenset(
    "wrong correct right expired invalid valid missing required needed set reset changed "
    "secure strong weak long short same different here there ready stored saved rotated "
    "revoked leaked compromised stolen lost updated shared sent generated created deleted "
    "removed active inactive fine okay good bad broken working complex simple too not also "
    "still being now unchanged unknown empty blank encrypted hashed hidden visible public "
    "private managed kept required optional the a an my your our their this that it".split()
)


def _secretish(value: str) -> bool:
    """A bare word after a label ("password hunter2") is a secret when it does not read as
    a word: digits, symbols, or capitals inside it."""
    return any(c.isdigit() for c in value) or not value.isalpha() or value[1:] != value[1:].lower()


def _labelled(match: re.Match[str]) -> str:
    value = match.group("value").rstrip(".!?")
    sep = match.group("sep").strip(" \"'`").lower()
    between = sep.rsplit(" ", 1)[0] if " " in sep else ""
    sep = sep.split()[-1] if sep.split() else ""
    sep = "is" if sep in ("adalah", "ialah") else sep
    if _WEAK_LABELS.match(match.group("label")) and not (
        any(c.isdigit() for c in value) and len(value) >= 4
    ):
        return match.group(0)  # "the key is to be consistent"
    if between and (sep not in ("is", "was", "=", ":") or not _secretish(value)):
        # Words between the label and "is": only a value that looks like a secret counts
        # ("the root password on that box is z4f&1-dJ", not "the secret to pasta is salt").
        return match.group(0)
    if value == REDACTED or (sep not in ("=", ":") and value.lower() in _NOT_A_VALUE):
        return match.group(0)
    if sep in ("", "to") and not _secretish(value):
        return match.group(0)  # "token refresh", "the secret to good pasta": no value given
    tail = match.group("value")[len(value) :]
    return f"{match.group('label')}{match.group('sep')}{REDACTED}{tail}"


# A long text is redacted a piece at a time, cut after a sentence or a line: no secret
# spans a sentence end, and each expression then holds the interpreter for milliseconds,
# not for the whole message (a server redacting a 64 KiB message before queueing it keeps
# answering other chats meanwhile). A private key block spans lines: it is taken first.
_PIECE_CHARS = 4096
_PIECE_END = re.compile(r"(?<=[.!?\n])\s")
_PRIVATE_KEY = re.compile(_TOKEN_SHAPES[0])


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    while len(text) - start > _PIECE_CHARS:
        cut = -1
        for match in _PIECE_END.finditer(text, start + _PIECE_CHARS // 2, start + _PIECE_CHARS):
            cut = match.end()
        if cut <= start:
            break  # no sentence end near: the rest is read whole
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def redact(text: str) -> str:
    """``text`` with every secret-shaped value replaced by ``[REDACTED]``."""
    if not text:
        return text
    if len(text) > 2 * _PIECE_CHARS:
        if "-----BEGIN" in text:
            text = _PRIVATE_KEY.sub(REDACTED, text)
        redacted = []
        for piece in _pieces(text):
            redacted.append(_redact(piece))
            time.sleep(0)  # a thread serving a chat meanwhile takes the interpreter now
        return "".join(redacted)
    return _redact(text)


# What each expression needs to find anything (a plain substring test is far cheaper
# than trying the expression at every position of an ordinary sentence).
_SHAPE_MARKS = (
    "-----begin",
    "sk-",
    "rk_",
    "sk_",
    "pk_",
    "xai-",
    "gsk_",
    "hf_",
    "aiza",
    "gh",
    "npm_",
    "glpat-",
    "xox",
    "hooks.slack.com",
    "akia",
    "asia",
    "agpa",
    "aida",
    "aroa",
    "anpa",
    "anva",
    "aipa",
    "eyj",
    "egm_",
    "bearer",
    "sg.",
    "pypi-",
    "_v1_",
    "os_v2_app_",
    "key-",
    "ac",
    "sk",
    "shp",
    "glrt-",
    "r8_",
    "dp.",
    "sk.",
    "pk.",
    "akid",
)
_LABEL_MARKS = (
    "pass",
    "p@ss",
    "p4ss",
    "pw",
    "sandi",
    "ifre",
    "parola",
    "contrase",
    "pwd",
    "secret",
    "token",
    "key",
    "credential",
    "pin",
    "cvv",
    "cvc",
    "sid",
)
_LOGIN_MARKS = ("login", "credential", "creds", "username", "user")
_RUN = re.compile(r"[A-Za-z0-9_\-+/=]{24}")


# Every shape has at least 16 characters of key material in one run, but a bearer token
# and a private key block: a text without such a run has none of the shapes.
_KEY_RUN = re.compile(r"[^\s.,;:!?'\"()]{16}")
_ASSIGN_MARKS = (
    "token",
    "secret",
    "passw",
    "pwd",
    "key",
    "auth",
    "credential",
    "dsn",
)


def _redact(text: str) -> str:
    text = redact_identifiers(text)
    low = text.lower()
    if (_KEY_RUN.search(text) or "bearer" in low or "-----begin" in low) and any(
        mark in low for mark in _SHAPE_MARKS
    ):
        text = _SHAPES.sub(REDACTED, text)
    if ("=" in text or ":" in text) and any(mark in low for mark in _ASSIGN_MARKS):
        text = _ASSIGNED.sub(lambda m: m.group(0)[: m.start("value") - m.start()] + REDACTED, text)
    if any(mark in low for mark in _LOGIN_MARKS):
        text = _LOGIN_PAIR.sub(
            lambda m: m.group(0)[: m.start("value") - m.start()] + REDACTED, text
        )
    if "aws" in low:
        text = _AWS_SECRET.sub(lambda m: m.group(1) + REDACTED, text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    if any(mark in low for mark in _LABEL_MARKS):
        text = _LABELLED.sub(_labelled, text)
    if _RUN.search(text) is None:
        return text
    return _RANDOM.sub(REDACTED, text)


def contains_secret(text: str) -> bool:
    return redact(text) != text


def redact_value(value: Any) -> Any:
    """A JSON value with every string (keys of objects too) redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {redact(str(k)): redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value
