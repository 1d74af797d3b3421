"""The Indonesian and Malay rule table: the pattern fragments and the rules of particular
statements, tried in the order of ``ID_RULES``.

Kept apart from ``indonesian.py``, which reads a clause with them and then, failing
them, by the word tables of ``data/id.json``: the table is long literal data that grows
by the line as statements are added, the reader's logic rarely changes.
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.readings import X

_I = re.IGNORECASE

__all__ = ["ID_ADVERBS", "ID_RULES"]

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

ID_RULES: list[tuple[str, rx.Rule]] = [
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
ID_ADVERBS = {
    "selalu": "always",
    "sentiasa": "always",
    "biasanya": "usually",
    "sering": "often",
    "tidak pernah": "never",
    "jarang": "rarely",
}
