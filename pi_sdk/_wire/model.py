"""A catalog entry: the chat model a wire API calls, its prices and limits (pi-ai 1.6 ``Model``).

pi-ai 1.6 ``types.ts`` (``BaseModel``, ``Model``) and ``providers/model-schema.ts``
(``ModelCost``, ``ModelCostTier``, ``ModelInputLimits``, ``ModelPromptCache``). Public as
:class:`pi_sdk.Model` and through :mod:`pi_sdk.types`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from pi_sdk._wire.levels import ModelThinkingLevel, clamp_thinking_level, supported_thinking_levels
from pi_sdk._wire.wire_model import WireModel

__all__ = [
    "Model",
    "ModelCost",
    "ModelCostTier",
    "ModelImageInputLimits",
    "ModelImageResize",
    "ModelInputLimits",
    "ModelPromptCache",
]


class ModelCostTier(WireModel):
    """Prices for requests over an input size (pi-ai 1.6 ``ModelCostTier``), USD per million tokens.

    JSON: ``{"inputTokensAbove", "input", "output", "cacheRead", "cacheWrite"}``. A tier applies to
    the whole request when its input tokens (``input + cacheRead + cacheWrite``) exceed
    :attr:`input_tokens_above`; among several, the highest threshold exceeded wins.
    """

    input_tokens_above: int
    """Tokens: the tier applies above this request input size."""
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class ModelCost(WireModel):
    """Prices in USD per million tokens (pi-ai 1.6 ``ModelCost``).

    JSON: ``{"input", "output", "cacheRead", "cacheWrite", "tiers"?}``. ``cache_write`` is the
    five-minute write price; one-hour writes cost twice :attr:`input` (Anthropic's published rate,
    pi-ai 1.6 ``calculateCost``).
    """

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    tiers: list[ModelCostTier] | None = None
    """Request-wide price tiers by input size (Gemini's and Claude's long-context prices...);
    ``None``: one price for every size."""


class ModelImageResize(WireModel):
    """How an image is resized before it enters the history (pi-ai 1.6 ``ModelImageResizeOptions``).

    JSON: ``{"maxWidth"?, "maxHeight"?, "maxBytes"?, "jpegQuality"?}``: pixels, bytes of the
    base64 payload, JPEG quality 1-100.
    """

    max_width: int | None = None
    max_height: int | None = None
    max_bytes: int | None = None
    jpeg_quality: int | None = None


class ModelImageInputLimits(WireModel):
    """Image limits of a model (pi-ai 1.6 ``ModelImageInputLimits``).

    JSON: ``{"resize"?, "maxPerMessage"?, "maxPerRequest"?}`` (counts of images).
    """

    resize: ModelImageResize | None = None
    max_per_message: int | None = None
    max_per_request: int | None = None


class ModelInputLimits(WireModel):
    """What a model accepts in one request (pi-ai 1.6 ``ModelInputLimits``).

    JSON: ``{"maxRequestBytes"?, "images"?}``: the largest serialized request in bytes, and the
    image limits. Catalog data only: pi-sdk does not resize or refuse on these yet.
    """

    max_request_bytes: int | None = None
    images: ModelImageInputLimits | None = None


class ModelPromptCache(WireModel):
    """How long a prompt-cache entry lives, per retention (pi-ai 1.6 ``ModelPromptCache``).

    JSON: ``{"short"?, "long"?}``, in seconds (Anthropic: 300 and 3600). ``None``: unknown.
    """

    short: float | None = None
    long: float | None = None


class Model(WireModel):
    """A chat model a wire API can call (pi-ai 1.6 ``Model``).

    ``api`` selects the registered provider implementation; ``provider`` names who serves it
    (used for API-key lookup and cross-provider history rules). ``compat`` holds API-specific
    flags, e.g. the OpenAI Chat Completions compat flags (pi-spec §1.7).

    pi-ai 1.6 catalogs also hold image-generation and classifier models (``type`` ``"image"``,
    ``"classifier"``); those are not chat models and fail validation here
    (:class:`pydantic.ValidationError`).
    """

    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    type: Literal["chat"] | None = None
    """``"chat"`` (pi-ai 1.6 catalogs say so) or ``None`` (chat, the default). Any other type is
    refused: an image or classifier model never loads as a chat model."""
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: ["text"])
    input_limits: ModelInputLimits | None = None
    """Request size and image limits (pi-ai 1.6 ``inputLimits``); ``None``: unknown."""
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128_000
    """Tokens."""
    max_tokens: int = 16_384
    """Maximum output tokens."""
    headers: dict[str, str] | None = None
    """Sent with every request; values may be credentials, so ``repr()`` shows names only."""
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, str | None] | None = None
    """pi-ai 1.6 ``thinkingLevelMap``: per level (``off``, ``minimal`` .. ``max``) the vendor's
    value, or ``None`` for a level the model does not support. ``xhigh`` and ``max`` are
    supported only when named here. ``None`` (the default): every level up to ``high``."""
    prompt_cache: ModelPromptCache | None = None
    """Prompt-cache lifetimes per retention (pi-ai 1.6 ``promptCache``); ``None``: unknown."""

    @field_validator("type", mode="before")
    @classmethod
    def _chat_only(cls, value: Any) -> Any:
        if value is not None and value != "chat":
            raise ValueError(
                f"a {value!r} model is not a chat model: pi-sdk calls chat models only"
                " (pi-ai 1.6 image and classifier models are not supported)"
            )
        return value

    def supported_thinking_levels(self) -> list[ModelThinkingLevel]:
        """The thinking levels this model accepts, lowest first (``["off"]`` without reasoning).

        pi-ai 1.6 ``getSupportedThinkingLevels``: ``off`` .. ``high`` for a reasoning model,
        plus ``xhigh`` and ``max`` when :attr:`thinking_level_map` names them, minus the levels
        it maps to ``None``.
        """
        levels = supported_thinking_levels(self.reasoning, self.thinking_level_map)
        return levels  # pyright: ignore[reportReturnType]

    def __repr_args__(self) -> Any:
        # Never show credentials (a gateway's auth header): header values are masked.
        for name, value in super().__repr_args__():
            yield name, (dict.fromkeys(value, "***") if name == "headers" and value else value)

    def clamp_thinking_level(self, level: ModelThinkingLevel) -> ModelThinkingLevel:
        """The supported level nearest ``level``: itself, else the next one up, else down.

        pi-ai 1.6 ``clampThinkingLevel`` (e.g. ``"max"`` on a model that names only ``xhigh``
        gives ``"xhigh"``; ``"xhigh"`` on a model without it gives ``"high"``; any level on a
        model without reasoning gives ``"off"``).

        Raises:
            ValueError: ``level`` is not ``"off"``, ``"minimal"`` .. ``"max"``.
        """
        clamped = clamp_thinking_level(level, self.reasoning, self.thinking_level_map)
        return clamped  # pyright: ignore[reportReturnType]
