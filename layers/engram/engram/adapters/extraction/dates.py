"""When a dated fact happened, from the words that say it and the time they were said.

The grammar records a time expression as a relative spec (``d:-1`` for "yesterday",
``m:-1`` for "last month", ``wd:last:saturday``, ``mo:next:february``...), independent of
any clock, so that what a sentence states can be cached; ``resolve`` turns the spec into
an ISO 8601 date at the granularity the words give: a day (``2023-05-07``), a month
(``2023-04``) or a year (``2022``).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

__all__ = ["direction", "resolve"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january february march april may june july august september october november december"
).split()


def _add_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def direction(spec: str | None) -> int:
    """Whether ``spec`` lies ahead (1), behind (-1), or neither or cannot say (0: today,
    "on Monday", a season, childhood, no spec)."""
    kind, _, rest = (spec or "").partition(":")
    if kind in ("d", "m", "y"):
        count = int(rest) if rest.lstrip("-").isdigit() else 0
        return (count > 0) - (count < 0)
    if kind in ("wd", "mo"):
        return {"next": 1, "last": -1}.get(rest.partition(":")[0], 0)
    return 0


def resolve(spec: str | None, at: datetime) -> str | None:
    """The ISO date ``spec`` names, seen from ``at`` (None: no date)."""
    if not spec:
        return None
    kind, _, rest = spec.partition(":")
    today = at.date()
    try:
        if kind == "d":
            return (today + timedelta(days=int(rest))).isoformat()
        if kind == "m":
            year, month = _add_months(today, int(rest))
            return f"{year:04d}-{month:02d}"
        if kind == "y":
            return f"{today.year + int(rest):04d}"
        if kind == "wd":
            which, _, name = rest.partition(":")
            target = _WEEKDAYS.index(name)
            delta = target - today.weekday()
            if which in ("last", "on"):  # "on Monday", said of what happened: the last
                delta = delta - 7 if delta >= 0 else delta
            elif which == "next":
                delta = delta + 7 if delta <= 0 else delta
            return (today + timedelta(days=delta)).isoformat()
        if kind == "mo":
            which, _, name = rest.partition(":")
            month = _MONTHS.index(name) + 1
            year = today.year
            if which == "next" and month <= today.month:
                year += 1
            elif which == "last" and month >= today.month:
                year -= 1
            return f"{year:04d}-{month:02d}"
    except (ValueError, OverflowError):
        return None
    return None  # "childhood", "season": a time said, of no date
