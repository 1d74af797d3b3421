"""Indonesian / Malay and Turkish statements: the common ways of stating each kind of fact.

Turkish puts the object before the verb and marks its case with a suffix, after an
apostrophe for names ("Python'u seviyorum"): the object is the words before the
verb, its suffix dropped.
"""

from __future__ import annotations

import re

from ..models import MemoryType
from . import rx
from .common import Step
from .common import make_fact as _fact
from .facts import ExtractedFact, Retraction, clean_object, object_id, slug, split_list
from .identity import allergy_facts
from .lexicon import known_term
from .text import restore

__all__ = ["read_indonesian", "read_turkish"]

F, E, P = MemoryType.FACTUAL, MemoryType.EPISODIC, MemoryType.PROCEDURAL
_I = re.IGNORECASE
X = r"(?P<x>[^,;:!?\n]+)"
# "Kakak saya pindah ke Surabaya" is about the sibling: "saya" after a person is "my".
_OTHERS = (
    "kakak adik suami istri isteri ibu bapak ayah anak teman kawan pacar bos atasan nenek kakek "
    "sepupu tetangga rekan abang mama papa"
).split()
_NOT_MY = "".join(f"(?<!(?i:{w}) )" for w in _OTHERS)
_SAYA = _NOT_MY + r"\b(?:saya|aku|sy|gue|gua)"
_KAMI = _NOT_MY + r"\b(?:saya|aku|kami|kita)"
# "saya Indonesia": who one is, but not a name.
_NOT_ID_NAMES = frozenset(
    "indonesia malaysia singapura brunei jawa melayu cina india muslim kristen islam "
    "katolik hindu buddha baik sehat lapar capek sibuk senang setuju sakit lelah bingung siap "
    "kenyang haus sedih marah takut malu mau bisa tidak oke ok ya".split()
)
_ID_ROLES = (
    r"desainer|perancang|guru|cikgu|dosen|pensyarah|dokter|doktor|perawat|jururawat|bidan|"
    r"programmer|pengembang|pembangun|insinyur|jurutera|arsitek|akitek|mahasiswa|pelajar|"
    r"siswa|akuntan|akauntan|wartawan|penulis|pengacara|peguam|apoteker|ahli\s+farmasi|"
    r"manajer|pengurus|analis|penganalisis|peneliti|penyelidik|koki|tukang\s+masak|"
    r"fotografer|jurugambar|konsultan|perunding|pilot|juruterbang|polisi|polis|petani"
)


def _objects(raw: str) -> list[str]:
    value = clean_object(
        re.sub(r"\s+(?:lagi|sekarang|juga|saja|sih|kok|deh|ya)$", "", raw, flags=_I)
    )
    if not value:
        return []
    parts = (
        re.split(r"\s*,\s*(?:dan\s+|atau\s+)?|\s+(?:dan|atau)\s+", value)
        if "," in value
        or (
            re.search(r"\s(?:dan|atau)\s", value)
            and all(p[:1].isupper() for p in re.split(r"\s+(?:dan|atau)\s+", value))
        )
        else split_list(value)
    )
    return [p for p in (clean_object(q) for q in parts) if p]


_ID_RULES: list[tuple[str, rx.Rule]] = [
    (
        "employer",
        rx.compile(
            _SAYA + r"\s+(?:\w+\s+){0,2}?(?:pindah\s+kerja|bergabung|join|mulai\s+kerja)\s+"
            r"(?:ke|dengan|di)\s+(?P<x>[A-Z][^,;:!?\n]*)",
            _I,
        ),
    ),
    (
        "withdraw",
        rx.compile(
            _KAMI
            + r"\s+(?:sudah\s+|telah\s+)?berhenti\s+(?:menggunakan|memakai|pakai|guna)\s+"
            + X,
            _I,
        ),
    ),
    (
        "name",
        rx.compile(r"\b(?i:panggil\s+(?:saya|aku))\s+(?P<x>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})"),
    ),
    (
        "instruction",
        rx.compile(r"^(?:tolong\s+)?(?P<x>(?:jangan|tidak\s+usah|usah)\s+.+)$", _I),
    ),
    ("like", rx.compile(r"\b(?:saya\s+hobi|hobi\s+saya(?:\s+adalah)?|saya\s+gemar)\s+" + X, _I)),
    (
        "dislike",
        rx.compile(
            _SAYA + r"\s+(?:sudah\s+)?(?:tidak|tak|kurang|nggak|gak)\s+(?:begitu|terlalu|lagi|"
            r"terlalu)?\s*(?:suka|gemar|senang)\s+(?:dengan\s+|akan\s+)?" + X,
            _I,
        ),
    ),
    (
        "location",
        rx.compile(_SAYA + r"\s+(?:\w+\s+){0,3}?(?:tinggal|menetap|berdomisili)\s+di\s+" + X, _I),
    ),
    (
        "switch",
        rx.compile(
            _KAMI + r"\s+(?:sudah\s+|telah\s+|baru\s+)?(?:beralih|pindah|migrasi|"
            r"berpindah)\s+dari\s+(?P<old>[^,;:!?\n]+?)\s+ke\s+(?P<new>[^,;:!?\n]+)",
            _I,
        ),
    ),
    (
        "withdraw",
        rx.compile(
            _KAMI + r"\s+(?:sudah\s+|dah\s+)?(?:tidak|tak|nggak|gak)\s+(?:lagi\s+)?"
            r"(?:menggunakan|memakai|pakai|guna|gunakan)\s+" + X,
            _I,
        ),
    ),
    (
        "dislike",
        rx.compile(
            _SAYA + r"\s+(?:sudah\s+)?(?:tidak|tak|kurang|nggak|gak)\s+(?:lagi\s+)?"
            r"(?:suka|gemar|senang)\s+(?:dengan\s+|akan\s+)?" + X,
            _I,
        ),
    ),
    ("dislike", rx.compile(_SAYA + r"\s+(?:benci|membenci)\s+" + X, _I)),
    (
        "compare",
        rx.compile(
            _SAYA + r"\s+lebih\s+(?:suka|senang|gemar|memilih)\s+(?P<x>[^,;:!?\n]+?)"
            r"\s+(?:daripada|dibanding(?:kan)?|ketimbang)\s+(?P<y>[^,;:!?\n]+)",
            _I,
        ),
    ),
    ("prefer", rx.compile(_SAYA + r"\s+lebih\s+(?:suka|senang|gemar|memilih)\s+" + X, _I)),
    (
        "like",
        rx.compile(
            _SAYA + r"\s+(?:sangat\s+|amat\s+)?(?:suka|gemar|senang|menyukai|"
            r"cinta|mencintai)\s+(?:dengan\s+|akan\s+)?" + X,
            _I,
        ),
    ),
    (
        "decision",
        rx.compile(
            _KAMI + r"\s+(?:sudah\s+|telah\s+|dah\s+)?(?:akan|mau|(?:memutuskan|putuskan|"
            r"putus)\s+(?:untuk\s+)?|sepakat\s+"
            r"(?:untuk\s+)?)\s*(?:menggunakan|memakai|pakai|guna|gunakan|memilih)\s+" + X,
            _I,
        ),
    ),
    (
        "usage",
        rx.compile(
            _KAMI + r"\s+(?:biasanya\s+|sekarang\s+|sedang\s+)?(?:menggunakan|memakai|"
            r"pakai|guna)\s+" + X,
            _I,
        ),
    ),
    (
        "pattern",
        rx.compile(
            r"^(?P<adv>(?:setiap|tiap|saban)\s+[\w-]+(?:\s+[\w-]+)?)"
            r"\s*,?\s+" + _SAYA + r"\s+" + X,
            _I,
        ),
    ),
    (
        "pattern",
        rx.compile(
            _SAYA + r"\s+(?P<adv>selalu|sentiasa|biasanya|sering|tidak\s+pernah|"
            r"jarang)\s+" + X,
            _I,
        ),
    ),
    (
        "name",
        rx.compile(
            r"\b(?i:nama\s+(?:saya|aku))\s+(?:adalah\s+|ialah\s+)?(?P<x>[A-Z][\w'-]+"
            r"(?:\s+[A-Z][\w'-]+){0,2})"
        ),
    ),
    (
        "role",
        rx.compile(
            _SAYA + r"\s+(?:bekerja|kerja)\s+sebagai\s+(?P<x>[^,;:!?\n]+?)"
            r"(?:\s+(?:di|pada)\s+(?P<place>[A-Z][^,;:!?\n]*))?$",
            _I,
        ),
    ),
    ("employer", rx.compile(_SAYA + r"\s+(?:bekerja|kerja)\s+(?:di|untuk|pada)\s+" + X, _I)),
    (
        "location",
        rx.compile(
            _SAYA + r"\s+(?:\w+\s+){0,2}?(?:pindah|berpindah|pulang)\s+ke\s+"
            r"(?P<x>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})$"
        ),
    ),
    ("name", rx.compile(r"^(?i:saya|aku)\s+(?i:adalah\s+|ialah\s+)?(?P<x>[A-Z][a-z'-]+)$")),
    (
        "deadline",
        rx.compile(
            r"^(?:deadline|tenggat(?:\s+waktu)?|batas\s+waktu|tarikh\s+akhir)\s+(?:[\w-]+\s+){0,2}?"
            r"(?:tanggal\s+|pada\s+|adalah\s+|ialah\s+)?(?P<x>\d{1,2}\s+[A-Za-z]+(?:\s+\d{4})?)",
            _I,
        ),
    ),
    (
        "allergy",
        rx.compile(
            _SAYA + r"\s+(?:ada\s+)?(?:alergi|alahan)\s+(?:terhadap\s+|pada\s+|kepada\s+)?" + X, _I
        ),
    ),
    (
        "hometown",
        rx.compile(_SAYA + r"\s+(?:berasal|asal|asli)\s+(?:dari\s+)?(?P<x>[A-Z][^,;:!?\n]*)", _I),
    ),
    # "saya desainer grafis": a role named without "seorang".
    (
        "role",
        rx.compile(
            r"^(?:dan\s+)?"
            + _SAYA
            + r"\s+(?:adalah\s+|ialah\s+)?(?P<x>(?i:"
            + _ID_ROLES
            + r")(?:\s+[a-z]+)?)$",
            _I,
        ),
    ),
    (
        "role",
        rx.compile(
            _SAYA + r"\s+(?:adalah\s+)?seorang\s+(?P<x>[^,;:!?\n]+?)(?:\s+(?:di|pada)\s+"
            r"(?P<org>[A-Z][^,;:!?\n]*))?$",
            _I,
        ),
    ),
    (
        "instruction",
        rx.compile(
            r"^(?:tolong\s+|mohon\s+|harap\s+|silakan\s+)?(?P<x>(?:selalu\s+)?(?:jawab|balas|"
            r"tulis|gunakan|pakai|buat)\w*\s+.+)$",
            _I,
        ),
    ),
    ("location", rx.compile(_SAYA + r"\s+(?:tinggal|menetap|berdomisili)\s+di\s+" + X, _I)),
    (
        "constraint",
        rx.compile(
            _KAMI + r"\s+(?:tidak\s+boleh|tak\s+boleh|dilarang|tidak\s+bisa|"
            r"tak\s+dapat)\s+" + X,
            _I,
        ),
    ),
    ("requirement", rx.compile(_KAMI + r"\s+(?:harus|wajib|perlu|mesti)\s+" + X, _I)),
]
_ID_ADVERBS = {
    "selalu": "always",
    "sentiasa": "always",
    "biasanya": "usually",
    "sering": "often",
    "tidak pernah": "never",
    "jarang": "rarely",
}


def read_indonesian(clause: str) -> list[Step]:
    for kind, pattern in rx.able(_ID_RULES, clause):
        match = pattern.search(clause)
        if match is None:
            continue
        steps = _read(kind, match, _ID_ADVERBS)
        if steps:
            return steps
    return []


# -- Turkish -----------------------------------------------------------------------------

# The object before a verb: up to three words, the first not a pronoun or adverb.
_TR_LEAD = (
    r"(?:^|(?<=\s))(?:(?:ben|biz|artık|gerçekten|çok|hep|de|da|en|daha|şu\s+an|şimdi|"
    r"genelde|aslında|hâlâ|hala|yine)\s+){0,4}"
)
_TR_OBJ = (
    r"(?P<x>[^\s,;:!?\n]+(?:\s+[^\s,;:!?\n]+){0,2}?)"
    r"(?:\s+(?:çok|gerçekten|hâlâ|hala|artık|da|de|daha)){0,3}"
)
_TR_ROLES = (
    r"(?:mühendis|öğretmen|doktor|öğrenci|geliştirici|yazılımcı|tasarımcı|avukat|hemşire|"
    r"yönetici|programcı|mimar|analist|araştırmacı|muhasebeci|gazeteci|aşçı)"
)
_TR_RULES: list[tuple[str, rx.Rule]] = [
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
        rx.compile(r"\b(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü]+?)(?:lı|li|lu|lü)(?:yım|yim|yum|yüm)\b"),
    ),
    (
        "name",
        rx.compile(r"^(?i:(?:merhaba|selam),?\s+)?(?i:ben)\s+(?P<x>[A-ZÇĞİÖŞÜ][\wçğıöşü'-]+)$"),
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
_TR_RULES.sort(key=lambda rule: rule[0] != "instruction")
_TR_ADVERBS = {
    "her zaman": "always",
    "asla": "never",
    "genellikle": "usually",
    "hiçbir zaman": "never",
    "sık sık": "often",
}
# Case suffixes after a name's apostrophe (accusative, dative, ablative, locative).
_TR_SUFFIX = rx.compile(r"'(?:[a-zçğıöşü]{1,4})$", _I)


def _tr_object(raw: str) -> str:
    return _TR_SUFFIX.sub("", raw.strip())


def read_turkish(clause: str) -> list[Step]:
    """Turkish joins statements with "ve" and commas ("Ankara'da yaşıyorum ve Java
    kullanıyorum"): each part is read on its own."""
    steps: list[Step] = []
    for part in re.split(r"\s*,\s*|\s+ve\s+", clause):
        for kind, pattern in rx.able(_TR_RULES, part):
            match = pattern.search(part)
            if match is None:
                continue
            found = _read(kind, match, _TR_ADVERBS, strip=_tr_object)
            if found:
                steps += found
                break
    return steps


_LOCAL_ASPECTS = [
    ("length", rx.compile(r"\b(?:kısa|uzun|pendek|singkat|panjang|ringkas|kata|kelime)\w*", _I)),
    ("language", rx.compile(r"\b(?:bahasa|dilinde|türkçe|ingilizce|inggris)\w*", _I)),
    ("emoji", rx.compile(r"emoji", _I)),
]


def _local_aspect(text: str) -> str:
    for name, pattern in _LOCAL_ASPECTS:
        if pattern.search(text):
            return name
    return slug(text)


def _who_is(aspect: str, value: str, content: str) -> ExtractedFact:
    """Who the user is, one fact per ``aspect`` (a new one replaces it)."""
    return _fact(
        "identity", F, value, content, key=f"identity:{aspect}", exclusive=True, subject=aspect
    )


def _read(
    kind: str,
    match: re.Match[str],
    adverbs: dict[str, str],
    strip: object = None,
) -> list[Step]:
    def objs(name: str = "x") -> list[str]:
        raw = match.group(name) or ""
        if callable(strip):
            raw = strip(raw)
        return _objects(raw)

    if kind == "allergy":
        return allergy_facts(match.group("x"))
    if kind == "deadline":
        when = restore(match.group("x")).strip()
        due = _fact(
            "requirement",
            MemoryType.PROCEDURAL,
            when,
            f"deadline: {when}",
            key="requirement:deadline",
            exclusive=True,
            subject="deadline",
        )
        return [(due, [])]
    if kind == "budget":
        figure = restore(match.group("x")).strip()
        cap = _fact(
            "constraint", F, figure, f"budget: {figure}", key="constraint:budget", exclusive=True
        )
        return [(cap, [])]
    if kind == "switch":
        new = objs("new")
        olds = objs("old")
        places = [*new, *olds]
        moved = re.search(r"\b(?:pindah|berpindah)\b", match.group(0), _I) is not None
        if (
            moved
            and new
            and all(known_term(restore(p)) is None and p[:1].isupper() for p in places)
        ):
            # "Saya pindah dari Jakarta ke Surabaya": a move of home, not of tools.
            home = restore(new[0])
            moved_to = _who_is("location", home, f"lives in {home}")
            return [(moved_to, [Retraction(object_id(restore(o)), ("identity",)) for o in olds])]
        fact = _fact("tech_preference", F, new[0], f"uses {new[0]}") if new else None
        retractions = [Retraction(object_id(restore(o)), replaced_by=fact) for o in olds]
        if fact is not None and not olds and fact.subject:
            retractions.append(Retraction(fact.subject, replaced_by=fact, keep=fact.object))
        return [(fact, retractions)] if fact or retractions else []
    if kind == "withdraw":
        steps: list[Step] = []
        for o in objs():
            fact = _fact("tech_preference", F, o, f"no longer uses {o}", negative=True)
            steps.append((fact, [Retraction(fact.object, ("decision",), replaced_by=fact)]))
        return steps
    if kind == "dislike":
        return [(_fact("preference", F, o, f"dislikes {o}", negative=True), []) for o in objs()]
    if kind == "compare":
        x, y = objs("x"), objs("y")
        if not x or not y:
            return []
        pair = sorted([object_id(x[0]), object_id(y[0])])
        fact = _fact(
            "preference",
            F,
            x[0],
            f"prefers {x[0]} over {y[0]}",
            key=f"preference:{pair[0]}_vs_{pair[1]}",
            exclusive=True,
        )
        return [(fact, [])]
    if kind in ("prefer", "like"):
        found = objs()
        return [
            (_fact("preference", F, o, o, exclusive=kind == "prefer" and len(found) == 1), [])
            for o in found
        ]
    if kind == "decision":
        found = objs()
        return [(_fact("decision", E, o, f"use {o}", exclusive=len(found) == 1), []) for o in found]
    if kind == "usage":
        return [(_fact("tech_preference", F, o, f"uses {o}"), []) for o in objs()]
    if kind == "pattern":
        found = objs()
        if not found:
            return []
        adverb = re.sub(r"\s+", " ", match.group("adv").lower())
        english = adverbs.get(adverb, adverb)
        return [
            (
                _fact(
                    "pattern",
                    F,
                    found[0],
                    f"{english} {found[0]}",
                    negative=english in ("never", "rarely"),
                ),
                [],
            )
        ]
    if kind == "favorite":
        value = restore(_tr_object(match.group("x"))).strip(" .")
        what = match.group("what").lower()
        fact = _fact(
            "preference",
            F,
            value,
            f"favorite {what}: {value}",
            key=f"preference:favorite_{slug(what)}",
            exclusive=True,
        )
        return [(fact, [])]
    if kind == "diet":
        value = restore(match.group("x")).lower()
        return [(_who_is("diet", value, f"is {value}"), [])]
    if kind == "hometown":
        value = restore(match.group("x"))
        return [(_who_is("hometown", value, f"is from {value}"), [])]
    if kind == "instruction":
        body = restore(match.group("x")).strip(" .")
        aspect = _local_aspect(body)
        return [
            (
                _fact(
                    "instruction",
                    P,
                    body,
                    body,
                    key=f"instruction:{aspect}",
                    exclusive=True,
                    subject=aspect,
                ),
                [],
            )
        ]
    if kind == "role":
        value = restore(match.group("x")).strip(" .")
        steps = [(_who_is("role", value, f"is {value}"), [])]
        place = match.groupdict().get("place")
        if place:
            place = restore(place).strip(" .")
            steps.append((_who_is("location", place, f"works in {place}"), []))
        org = match.groupdict().get("org")
        if org:
            org = restore(org).strip(" .")
            steps.append((_who_is("employer", org, f"works at {org}"), []))
        return steps
    if kind == "employer" and match.groupdict().get("role"):
        org = restore(_tr_object(match.group("x"))).strip(" .")
        role = restore(match.group("role")).strip(" .")
        return [
            (_who_is("employer", org, f"works at {org}"), []),
            (_who_is("role", role, f"is {role}"), []),
        ]
    if kind in ("name", "employer", "location"):
        value = restore(_tr_object(match.group("x"))).strip(" .")
        if not clean_object(value) or (kind != "employer" and known_term(value) is not None):
            return []  # "saya pindah ke React" is a switch of tools, not of home
        if kind == "name" and value.lower() in _NOT_ID_NAMES:
            return []
        template = {"name": "name is {x}", "employer": "works at {x}", "location": "lives in {x}"}
        return [(_who_is(kind, value, template[kind].format(x=value)), [])]
    if kind == "constraint":
        return [(_fact("constraint", F, o, f"cannot {o}", negative=True), []) for o in objs()[:1]]
    if kind == "requirement":
        return [(_fact("requirement", P, o, f"must {o}"), []) for o in objs()[:1]]
    return []
