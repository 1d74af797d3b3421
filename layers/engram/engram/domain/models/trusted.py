"""Models built from values the engine wrote itself, without validation or lookups."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["trusted"]

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """``cls.model_construct(**values)`` for ``values`` that name every field by its own
    name, in declaration order (rows read back from our database, a memory widened into
    a retrieved one). ``model_construct`` looks every field up under its aliases first:
    ~12 us per memory, a ~50-model retrieval's largest share of Python time; setting the
    same attributes it sets is a fraction of that. Anything else goes the general way."""
    if (
        list(values) != list(cls.__pydantic_fields__)  # same names, same order
        or cls.__pydantic_post_init__
        or cls.model_config.get("extra") == "allow"
    ):
        return cls.model_construct(**values)
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
