"""The Turkish rule table: the pattern fragments and the rules of particular statements.

Kept apart from ``turkish.py``, which reads a clause with them: the table is long literal
data that changes by the line as statements are added, while the reader's logic (the
verb-final grammar over ``data/tr.json``, then these rules) rarely does. Rules are tried
in the order of ``TR_RULES``.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx

_I = re.IGNORECASE

__all__ = ["TR_ADVERBS", "TR_RULES"]

# The object before a verb: up to three words, the first not a pronoun or adverb.
_TR_LEAD = (
    r"(?:^|(?<=\s))(?:(?:ben|biz|artık|gerçekten|çok|hep|de|da|en|daha|şu\s+an|şimdi|"
    r"genelde|aslında|hâlâ|hala|yine)\s+){0,4}"
)
_TR_OBJ = (
    r"(?P<x>[^\s,;:!?\n]+(?:\s+[^\s,;:!?\n]+){0,2}?)"
    r"(?:\s+(?:çok|gerçekten|hâlâ|hala|artık|da|de|daha)){0,3}"
)
# "-lıyım" is "I am from" after a place, and "I am" after an adjective that ends the same
# way: "Mutluyum" (I'm happy), "Evliyim" (I'm married). A capital says nothing at the
# start of a sentence, so these are named.
_TR_NOT_FROM = (
    r"(?i:mutlu|evli|heyecanlı|şanslı|umutlu|endişeli|kaygılı|stresli|sevinçli|huzurlu|"
    r"keyifli|sağlıklı|kararlı|sorumlu|çocuklu|meraklı|gururlu|hevesli|sabırlı|dikkatli|"
    r"akıllı|tecrübeli|deneyimli|yetenekli|başarılı|sinirli|borçlu|suçlu|haklı|mutsuz|"
    r"üzüntülü|tasalı|neşeli|uykulu|ateşli|nişanlı|güçlü|dertli|kilolu|hazırlıklı|"
    r"yetkili|görevli|izinli)"
)
_TR_ROLES = (
    r"(?:mühendis|öğretmen|doktor|öğrenci|geliştirici|yazılımcı|tasarımcı|avukat|hemşire|"
    r"yönetici|programcı|mimar|analist|araştırmacı|muhasebeci|gazeteci|aşçı)"
)
TR_RULES: list[tuple[str, rx.Rule]] = [
    (
        "favorite",
        rx.compile(r"\b(?i:en\s+sevdiğim)\s+(?P<what>\w+)\s+(?P<x>[^,;:!?\n]+)"),
    ),
    (
        "usage",
        rx.compile(
            r"^(?:ekibimiz|ekip|şirketimiz|biz)?\s*" + _TR_OBJ + r"\s+kullanıyor(?:lar)?\b", _I
        ),
    ),
    (
        "switch",
        rx.compile(
            r"(?P<old>[^\s,;:!?\n]+?)\s+yerine\s+(?P<new>[^\s,;:!?\n]+?)\s+"
            r"(?:kullanıyoruz|kullanıyorum|kullanacağız|seçtik)\b",
            _I,
        ),
    ),
    (
        "withdraw",
        rx.compile(_TR_LEAD + _TR_OBJ + r"\s+(?:bıraktık|bıraktım|bırakıyoruz|terk\s+ettik)\b", _I),
    ),
    (
        "name",
        rx.compile(
            r"\b(?i:(?:benim\s+)?adım|ismim)\s+(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü'-]+"
            r"(?:\s+[A-ZÇĞİÖŞÜ][\wçğıöşü'-]+){0,2})"
        ),
    ),
    (
        "hometown",
        rx.compile(
            r"\b(?!" + _TR_NOT_FROM + r"(?:yım|yim|yum|yüm)\b)"
            r"(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü]+?)(?:lı|li|lu|lü)(?:yım|yim|yum|yüm)\b"
        ),
    ),
    (
        "name",
        # not "Ben İstanbul'dayım": a word with a case suffix is no name
        rx.compile(r"^(?i:(?:merhaba|selam),?\s+)?(?i:ben)\s+(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü-]+)$"),
    ),
    (
        "diet",
        rx.compile(r"\b(?P<x>vejetaryen|vegan|vejeteryan)(?:im|ım|iz|ız)\b", _I),
    ),
    ("allergy", rx.compile(r"(?P<x>[^\s,;:!?\n]+?)(?:'?(?:ya|ye|a|e))\s+alerjim\s+var\b", _I)),
    (
        "deadline",
        rx.compile(
            r"(?P<x>\d{1,2}\s+[A-ZÇĞİÖŞÜa-zçğıöşü]+?)(?:'?(?:ya|ye|a|e))\s+kadar\s+"
            r"(?:bitmeli|bitmesi\s+gerekiyor|teslim|bitirmem|bitirmemiz|hazır)",
            _I,
        ),
    ),
    ("budget", rx.compile(r"\bbütçe(?:miz|m|niz)?\s+(?P<x>\d[\d.,]*\s*[\wçğıöşü]*)", _I)),
    (
        "location",
        rx.compile(
            r"(?P<x>[A-ZÇĞİÖŞÜ][^\s,;:!?\n]*?)(?:'?(?:ye|ya|e|a))\s+(?:taşındım|taşındık|yerleştim)\b"
        ),
    ),
    (
        "employer",
        rx.compile(
            r"(?P<x>[A-ZÇĞİÖŞÜ][^\s,;:!?\n]*?)(?:'?(?:da|de|ta|te))\s+(?P<role>[^,;:!?\n]+?)\s+"
            r"olarak\s+çalışıyorum\b"
        ),
    ),
    (
        "instruction",
        rx.compile(
            r"^(?:lütfen\s+)?(?P<x>(?:bana\s+)?(?:hep\s+|her\s+zaman\s+)?.*?(?:cevap|yanıt)\s+"
            r"(?:ver|yaz))\b",
            _I,
        ),
    ),
    (
        "switch",
        rx.compile(
            r"(?P<old>[^\s,;:!?\n]+)(?:'?(?:den|dan|ten|tan))\s+(?P<new>[^\s,;:!?\n]+?)"
            r"(?:'?(?:ye|ya|e|a))\s+(?:geçtik|geçtim|geçiyoruz|geçiyorum|taşındık|"
            r"taşıdık|geçeceğiz)",
            _I,
        ),
    ),
    (
        "switch",
        rx.compile(
            r"^(?:ben\s+|biz\s+)?(?P<old>)(?P<new>[^\s,;:!?\n]+?)(?:'?(?:ye|ya|e|a))\s+"
            r"(?:geçtik|geçtim|geçiyoruz|geçiyorum|geçeceğiz)\b",
            _I,
        ),
    ),
    ("withdraw", rx.compile(r"\bartık\s+" + _TR_OBJ + r"\s+kullanmıyor(?:um|uz)\b", _I)),
    (
        "dislike",
        rx.compile(
            _TR_LEAD + _TR_OBJ + r"\s+(?:sevmiyorum|sevmem|beğenmiyorum|"
            r"hoşlanmıyorum)\b",
            _I,
        ),
    ),
    ("dislike", rx.compile(_TR_LEAD + _TR_OBJ + r"\s+nefret\s+ediyorum\b", _I)),
    (
        "compare",
        rx.compile(
            _TR_LEAD + r"(?P<x>[^\s,;:!?\n]+?)(?:'?(?:yı|yi|yu|yü|ı|i|u|ü))?\s+"
            r"(?P<y>[^\s,;:!?\n]+?)(?:'?(?:ya|ye|a|e))\s+tercih\s+ediyorum\b",
            _I,
        ),
    ),
    ("prefer", rx.compile(_TR_LEAD + _TR_OBJ + r"\s+tercih\s+ediyorum\b", _I)),
    (
        "like",
        rx.compile(
            _TR_LEAD + _TR_OBJ + r"\s+(?:seviyorum|severim|beğeniyorum|"
            r"bayılıyorum)\b",
            _I,
        ),
    ),
    (
        "decision",
        rx.compile(
            _TR_LEAD + _TR_OBJ + r"\s+(?:kullanacağız|kullanacağım|"
            r"seçtik|seçtim)\b",
            _I,
        ),
    ),
    ("decision", rx.compile(_TR_LEAD + _TR_OBJ + r"\s+karar\s+verdik\b", _I)),
    ("usage", rx.compile(_TR_LEAD + _TR_OBJ + r"\s+kullanıyor(?:um|uz)\b", _I)),
    (
        "pattern",
        rx.compile(
            r"\b(?P<adv>her\s+zaman|asla|genellikle|hiçbir\s+zaman|sık\s+sık)\s+"
            r"(?P<x>[^,;:!?\n]+)",
            _I,
        ),
    ),
    (
        "name",
        rx.compile(
            r"\b(?:benim\s+)?adım\s+(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü'-]+"
            r"(?:\s+[A-ZÇĞİÖŞÜ][\wçğıöşü'-]+){0,2})"
        ),
    ),
    (
        "employer",
        rx.compile(
            _TR_LEAD + r"(?P<x>[A-ZÇĞİÖŞÜ][^\s,;:!?\n]*?)(?:'?(?:da|de|ta|te))\s+"
            r"çalışıyorum\b"
        ),
    ),
    (
        "location",
        rx.compile(
            _TR_LEAD + r"(?P<x>[A-ZÇĞİÖŞÜ][^\s,;:!?\n]*?)(?:'?(?:da|de|ta|te))\s+"
            r"(?:yaşıyorum|oturuyorum|ikamet\s+ediyorum)\b"
        ),
    ),
    # "Aselsan'da donanım mühendisiyim": where, then the role as a predicate.
    (
        "employer",
        rx.compile(
            r"(?P<x>[A-ZÇĞİÖŞÜ][^\s,;:!?\n]*?)(?:'?(?:da|de|ta|te))\s+(?P<role>(?:\w+\s+)?"
            + _TR_ROLES
            + r")(?:iyim|ıyım|yim|yım|im|ım|um|üm)\b",
            _I,
        ),
    ),
    ("constraint", rx.compile(_TR_LEAD + _TR_OBJ + r"\s+kullanamayız\b", _I)),
    (
        "instruction",
        rx.compile(
            r"^(?:lütfen\s+)?(?P<x>(?:[\w\s]+?\s+)?(?:cevap|yanıt)\w*\s+.+?\s+"
            r"(?:tut|ver|yaz|olsun|kullan|kullanma|ekle|koy))\b",
            _I,
        ),
    ),
    (
        "role",
        rx.compile(
            r"(?P<x>(?:\w+\s+)?" + _TR_ROLES + r")(?:iyim|ıyım|yim|yım|im|ım|um|üm)\b",
            _I,
        ),
    ),
    (
        "pattern",
        rx.compile(
            r"\b(?P<adv>her\s+(?:sabah|gün|akşam|gece|hafta|hafta\s+sonu|pazartesi|salı|"
            r"çarşamba|perşembe|cuma|cumartesi|pazar))\s+(?P<x>[^,;:!?\n]+)",
            _I,
        ),
    ),
    # The object is all of its part up to the verb: anchored there, not at every word.
    (
        "requirement",
        rx.compile(r"(?:^|(?<=[,;:!?\n]))(?P<x>[^,;:!?\n]+?)\s+(?:gerekiyor|zorunlu|şart)\b", _I),
    ),
]
# An instruction may contain "her zaman" (always): it is read before the habit rule.
TR_RULES.sort(key=lambda rule: rule[0] != "instruction")
TR_ADVERBS = {
    "her zaman": "always",
    "asla": "never",
    "genellikle": "usually",
    "hiçbir zaman": "never",
    "sık sık": "often",
}
