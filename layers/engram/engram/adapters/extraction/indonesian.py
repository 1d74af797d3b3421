"""Indonesian and Malay statements: the common ways of stating each kind of fact."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import Step, make_fact
from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.readings import E, F, X, read_match

_I = re.IGNORECASE

__all__ = ["read_indonesian"]

# "Kakak saya pindah ke Surabaya" is about the sibling: "saya" after a person is "my".
_OTHERS = (
    "kakak adik suami istri isteri ibu bapak ayah anak teman kawan pacar bos atasan nenek kakek "
    "sepupu tetangga rekan abang mama papa"
).split()
_NOT_MY = "".join(f"(?<!(?i:{w}) )" for w in _OTHERS)
_SAYA = _NOT_MY + r"\b(?:saya|aku|sy|gue|gua)"
_KAMI = _NOT_MY + r"\b(?:saya|aku|kami|kita)"
_ID_ROLES = (
    r"desainer|perancang|guru|cikgu|dosen|pensyarah|dokter|doktor|perawat|jururawat|bidan|"
    r"programmer|pengembang|pembangun|insinyur|jurutera|arsitek|akitek|mahasiswa|pelajar|"
    r"siswa|akuntan|akauntan|wartawan|penulis|pengacara|peguam|apoteker|ahli\s+farmasi|"
    r"manajer|pengurus|analis|penganalisis|peneliti|penyelidik|koki|tukang\s+masak|"
    r"fotografer|jurugambar|konsultan|perunding|pilot|juruterbang|polisi|polis|petani"
)


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
        steps = read_match(kind, match, _ID_ADVERBS)
        if steps:
            return steps
    return _read_life(clause)


# -- what people say about their lives, over the word tables (data/id.json) ---------------


@dataclass(frozen=True)
class _Tables:
    subjects: frozenset[str]
    adverbs: tuple[tuple[str, ...], ...]
    family: frozenset[str]
    pets: frozenset[str]
    possessions: frozenset[str]
    verbs: tuple[tuple[tuple[str, ...], str], ...]
    diet: tuple[tuple[tuple[str, ...], str], ...]
    age: tuple[tuple[str, ...], ...]
    years: frozenset[str]
    named: frozenset[str]
    times: tuple[tuple[tuple[str, ...], str], ...]
    time_starts: frozenset[str]
    templates: dict[str, str]


def _phrases(words: list[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted((tuple(w.split()) for w in words), key=len, reverse=True))


@cache
def _tables() -> _Tables:
    raw = json.loads(resources.files(__package__).joinpath("data", "id.json").read_text("utf-8"))
    verbs = [(tuple(v.split()), kind) for kind, vs in raw["verbs"].items() for v in vs]
    diet = [(tuple(k.split()), v) for k, v in raw["diet"].items()]
    time = raw["time"]
    times = [(tuple(k.split()), f"d:{v}") for k, v in time["relative_days"].items()]
    times += [(tuple(k.split()), f"m:{v}") for k, v in time["relative_months"].items()]
    times += [(tuple(k.split()), f"y:{v}") for k, v in time["relative_years"].items()]
    return _Tables(
        subjects=frozenset(raw["subjects"]),
        adverbs=_phrases(raw["adverbs"]),
        family=frozenset(raw["relations"]["family"]),
        pets=frozenset(raw["relations"]["pet"]),
        possessions=frozenset(raw["possessions"]),
        verbs=tuple(sorted(verbs, key=lambda v: len(v[0]), reverse=True)),
        diet=tuple(sorted(diet, key=lambda v: len(v[0]), reverse=True)),
        age=_phrases(raw["age"]),
        years=frozenset(raw["years"]),
        named=frozenset(raw["named"]),
        times=tuple(sorted(times, key=lambda v: len(v[0]), reverse=True)),
        time_starts=frozenset(n[0] for n, _ in times),
        templates=dict(raw["templates"]),
    )


def _starts(lows: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(lows[i : i + len(phrase)]) == phrase


def _read_life(clause: str) -> list[Step]:
    """ "Saya ada dua ekor kucing", "Kami baru pindah ke Penang bulan lepas", "Umur saya
    28 tahun", "Anak saya baru masuk tadika": the subject, the verb, what follows."""
    t = _tables()
    words = [w.strip(".,!?") for w in clause.split() if w.strip(".,!?")]
    lows = [w.lower() for w in words]
    for phrase in t.age:
        if _starts(lows, 0, phrase) and len(lows) > len(phrase):
            number = lows[len(phrase)]
            if number.isdigit() and 1 <= int(number) <= 120:
                content = t.templates["age"].replace("{x}", number)
                fact = make_fact(
                    "identity",
                    F,
                    number,
                    content,
                    key="identity:age",
                    exclusive=True,
                    subject="age",
                )
                return [(fact, [])]
    when: str | None = None
    kept: list[str] = []
    k = 0
    while k < len(lows):  # time words are the fact's date, not its words
        hit = (
            next(((n, spec) for n, spec in t.times if _starts(lows, k, n)), None)
            if lows[k] in t.time_starts
            else None
        )
        if hit:
            when, k = hit[1], k + len(hit[0])
            continue
        kept.append(words[k])
        k += 1
    words, lows = kept, [w.lower() for w in kept]
    if not words:
        return []
    relation: str | None = None
    i = 0
    if lows[0] in t.subjects:
        i = 1
    elif lows[0] in t.family or lows[0] in t.pets or lows[0].removesuffix("ku") in t.family:
        relation = lows[0].removesuffix("ku")
        i = 2 if len(lows) > 1 and lows[1] in t.subjects else 1
    else:
        return []
    while i < len(lows):
        step = next((len(a) for a in t.adverbs if _starts(lows, i, a)), 0)
        if not step:
            break
        i += step
    for phrase, label in t.diet:
        if _starts(lows, i, phrase):
            what = " ".join(words[i + len(phrase) :])
            if what or label.startswith("is "):
                content = f"{label} {what}".strip()
                return [(make_fact("health", F, what or label, content), [])]
    verb = next(((p, kind) for p, kind in t.verbs if _starts(lows, i, p)), None)
    if verb is None:
        return []
    phrase, kind = verb
    rest = words[i + len(phrase) :]
    obj = " ".join(rest).strip()
    if not obj:
        return []
    nouns = {w.lower() for w in rest}
    if relation is not None:
        category, content = (
            ("pet" if relation in t.pets else "family"),
            f"{relation} {' '.join(words[i:])}",
        )
    elif kind == "possession":
        # "ada" is "have" and "there is": only a pet, family or a thing one owns is kept
        # ("saya ada rapat jam 3" is a meeting, not a possession).
        if nouns & t.pets:
            category = "pet"
        elif nouns & t.family:
            category = "family"
        elif nouns & t.possessions:
            category = "possession"
        else:
            return []
        template = t.templates["pet" if category == "pet" else "possession"]
        content = template.replace("{x}", obj)
    elif kind == "home":
        place = re.sub(r"^(?:ke|di|dari)\s+", "", obj)
        if terms_in(place):
            return []  # "saya pindah ke Kubernetes": a switch of tools, not of home
        lives = phrase[0] in ("tinggal", "menetap", "duduk")
        content = t.templates["home_live" if lives else "home"].replace("{x}", place)
        fact = make_fact(
            "home",
            F,
            place,
            content,
            key="identity:location",
            exclusive=True,
            subject="location",
        )
        return [(replace(fact, when=when if not lives else None), [])]
    else:
        category = kind
        content = t.templates[kind].replace("{x}", obj if kind != "event" else " ".join(words[i:]))
    type_ = E if category in ("event", "plan") else F
    fact = make_fact(category, type_, obj, content)
    if category == "event" or (relation is not None and when):
        when = when or "d:0"
    return [(replace(fact, when=when), [])]
