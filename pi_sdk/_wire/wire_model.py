"""The base of every wire type: pi-mono's JSON names, ``None`` left out, unknown fields kept.

:class:`WireModel` is what :mod:`pi_sdk.types` (messages, content blocks, context),
:mod:`pi_sdk._wire.usage` (usage and cost) and :mod:`pi_sdk._wire.model` (the catalog's
``Model``) are built on; the public names are re-exported by :mod:`pi_sdk.types`.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

from pi_sdk._wire.lean import compact, own_fields_set, prepare_setattr

__all__ = ["WireModel", "now_ms"]


def now_ms() -> int:
    """Return the current time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


class WireModel(BaseModel):
    """Base of every wire type: camelCase JSON aliases, ``None`` fields omitted, extras kept.

    Instances are lean (:mod:`pi_sdk._wire.lean`): the set of given field names is shared between
    instances given the same fields, and an empty extras dict is not kept (``model_extra`` is
    then ``None``; equality, JSON and round trips are unchanged).
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,
    )

    def model_post_init(self, context: Any, /) -> None:
        """Make the new instance lean (see the class docstring)."""
        compact(self)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in type(self).__pydantic_fields__:
            prepare_setattr(self, name)  # an unknown, private or class attribute
        elif name not in self.__pydantic_fields_set__:
            own_fields_set(self)  # pydantic adds the name to the set: it must be ours
        super().__setattr__(name, value)

    @model_serializer(mode="wrap")
    def _drop_none(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}  # pyright: ignore[reportUnknownVariableType]
        return data
