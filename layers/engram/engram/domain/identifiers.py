"""Numbers that identify a person or an account, found by their check digits, so that
redaction (``engram.domain.redaction``) replaces them before anything is stored.

A shape alone would take order numbers and phone numbers for cards; each kind here is
confirmed by what its issuer builds into it: payment cards by an issuer prefix and the
Luhn digit, IBANs by ISO 13616's mod-97 check, Turkish identity numbers by their two
check digits, US social security numbers by the
ranges never issued, UK National Insurance numbers by the prefixes never used. A number
of any of these kinds introduced by its name ("SSN 123456789", "passport no X1234567",
"NIK ...") is replaced whatever its digits: an Indonesian NIK has no check digit, and
sixteen digits alone are as often an order or a tracking number.
"""

from __future__ import annotations

import re

__all__ = ["redact_identifiers"]

_CARD = re.compile(r"(?<![\w.,/-])\d(?:[ -]?\d){11,18}(?![\w-]|[.,/]\d)")
# Issuer prefixes (ISO/IEC 7812 ranges as the networks publish them): Visa, Mastercard,
# Amex, Diners, Discover, JCB, UnionPay, Maestro, Mir, RuPay, Troy.
_CARD_PREFIX = re.compile(r"^(?:4|5[0-9]|2[2-7]|3[4-9]|30[0-5]|6|220[0-4]|9792)")
# Printed in groups of four, or run together (the last group shorter).
_IBAN = re.compile(
    r"(?<![\w-])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]{4}){2,7}(?:[ ]?[A-Za-z0-9]{1,3})?(?![\w-])"
)
_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
_NINO = re.compile(
    r"(?<![\w-])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\w-])"
)
_ELEVEN = re.compile(r"(?<![\w.,/-])[1-9]\d{10}(?![\w-]|[.,/]\d)")
_NAMED = re.compile(
    r"(?i)\b(?P<label>ssn|social[ \-]security(?:[ \-]number|[ \-]no\.?)?|"
    r"national[ \-](?:insurance|id(?:entity)?)[ \-](?:number|no\.?)|nino|"
    r"passport[ \-](?:number|no\.?|#)|passport|tax[ \-]id|"
    r"nik|no\.?[ \-]?ktp|ktp|nomor[ \-]induk[ \-]kependudukan|"
    r"tc[ \-]?kimlik(?:[ \-]no(?:\.|su)?)?|kimlik[ \-]numaras[ıi](?:m|n[ıi]z)?)"
    # A few joining words may come between ("NIK saya 31...", "my SSN is 123...").
    r"(?P<sep>(?:[\s:#=]|\b(?:is|adalah|ialah|saya|my|numaram|numarası)\b){1,16})"
    r"(?P<value>[A-Za-z]{0,2}\d[\d \-]{4,}\d[A-Za-z]?)(?![\w-])"
)
_REDACTED = "[REDACTED]"


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn(digits):
        return _REDACTED
    return match.group(0)


def _valid_iban(printed: str) -> bool:
    text = printed.replace(" ", "").upper()
    if not 15 <= len(text) <= 34:
        return False
    moved = text[4:] + text[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _iban(match: re.Match[str]) -> str:
    found = match.group(0)
    if _valid_iban(found):
        return _REDACTED
    # The last short group may be the next word ("... 7654 32 is mine" read "32 is").
    head, _, tail = found.rpartition(" ")
    if head and len(tail) < 4 and _valid_iban(head):
        return f"{_REDACTED} {tail}"
    return found


def _tckn(match: re.Match[str]) -> str:
    d = [int(c) for c in match.group(0)]
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    if d[9] == tenth and d[10] == sum(d[:10]) % 10:
        return _REDACTED
    return match.group(0)


def _named(match: re.Match[str]) -> str:
    return f"{match.group('label')}{match.group('sep')}{_REDACTED}"


def redact_identifiers(text: str) -> str:
    """``text`` with card numbers, IBANs and national identity numbers replaced."""
    if not any(c.isdigit() for c in text):
        return text
    text = _NAMED.sub(_named, text)
    text = _CARD.sub(_card, text)
    text = _IBAN.sub(_iban, text)
    text = _SSN.sub(_REDACTED, text)
    text = _NINO.sub(_REDACTED, text)
    return _ELEVEN.sub(_tckn, text)
