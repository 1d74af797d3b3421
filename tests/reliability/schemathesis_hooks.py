"""What the schema cannot say, told to the generator (SCHEMATHESIS_HOOKS points here).

JSON Schema has no notion of "now": a memory whose ``expiresAt`` is already past is
refused (422, it would be stored and never seen). Generated cases that happen to pick
a past date get a future one instead, so positive cases stay positive; a negative
case keeps whatever makes it negative.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import schemathesis

_FUTURE = (datetime.now(UTC) + timedelta(days=3650)).isoformat()


def _future(item: Any) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("expiresAt"), str):
        return
    try:
        moment = datetime.fromisoformat(item["expiresAt"].replace("Z", "+00:00"))
    except ValueError:
        return  # not a date: that is what this case tests
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment <= datetime.now(UTC) + timedelta(days=1):
        item["expiresAt"] = _FUTURE


@schemathesis.hook
def map_case(ctx: Any, case: Any) -> Any:
    body = case.body
    if isinstance(body, list):
        for item in body:
            _future(item)
    else:
        _future(body)
    return case
