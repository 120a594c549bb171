"""The tool declaration (pi-ai 1.6 ``Tool``), with its optional constrained sampling.

JSON: ``{"name", "description", "parameters", "constrainedSampling"?}`` where
``constrainedSampling`` is ``false``, ``{"type": "json_schema", "strict": "prefer" | "require"}``
or ``{"type": "grammar", "variants": {"openai_lark"?, "openai_regex"?}}``
(:mod:`pi_sdk._wire.constrained_sampling`). The methods decide, per model, how a provider sends
the tool; re-exported by :mod:`pi_sdk.types`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from pi_sdk._wire.constrained_sampling import (
    STRICT_TOOL_LIMIT_ERRORS,
    GrammarSampling,
    JsonSchemaSampling,
    ToolGrammar,
    UnsupportedKeyword,
    UnsupportedStrictSchema,
    grammar_input_property,
    make_strict_json_schema,
)
from pi_sdk._wire.error_base import ConfigurationError
from pi_sdk._wire.model import Model
from pi_sdk._wire.wire_model import WireModel

__all__ = ["Tool"]


class Tool(WireModel):
    """A tool the model may call. ``parameters`` is a JSON Schema object.

    ``constrained_sampling`` (pi-ai 1.6 ``constrainedSampling``) asks for strict JSON-schema
    arguments or an OpenAI grammar; dicts in pi's JSON shape are accepted, e.g.
    ``Tool(name=..., parameters=..., constrained_sampling={"type": "json_schema", "strict":
    "require"})``. Providers read it through :meth:`strict_mode`, :meth:`wire_parameters` and
    :meth:`grammar` (rules in ``docs/constrained-tools.md``).
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    constrained_sampling: (
        Literal[False]
        | Annotated[JsonSchemaSampling | GrammarSampling, Field(discriminator="type")]
        | None
    ) = None

    def _where(self, model: Model) -> str:
        return f"tool {self.name!r} on {model.provider}/{model.id} ({model.api})"

    def prefers_strict(self) -> bool:
        """True for ``{"type": "json_schema", "strict": "prefer"}``."""
        sampling = self.constrained_sampling
        return isinstance(sampling, JsonSchemaSampling) and sampling.strict == "prefer"

    @staticmethod
    def is_strict_limit_error(text: str) -> bool:
        """Whether a vendor's error text says the request's strict tools exceed its limits.

        Claude's refusals (Anthropic API, Bedrock: :data:`STRICT_TOOL_LIMIT_ERRORS`), after
        which pi-ai 1.6 sends the request once more with its ``prefer`` tools non-strict
        (``isStrictToolLimitErrorMessage``).
        """
        return any(limit in text for limit in STRICT_TOOL_LIMIT_ERRORS)

    def strict_mode(
        self,
        model: Model,
        supported: bool,
        unsupported: UnsupportedKeyword | None = None,
        *,
        prefer: bool = True,
    ) -> bool | None:
        """``True`` when this tool goes strict to ``model``, else ``None``.

        pi-ai 1.6 ``resolveJsonSchemaStrictSampling``.

        Args:
            model: The target (named in the error).
            supported: The model's compat flag says its API takes strict tools.
            unsupported: The vendor's extra keyword check (Anthropic rejects ``minimum`` ...).
            prefer: ``False``: a ``strict: "prefer"`` tool goes non-strict (a request sent
                again after the vendor refused its strict tools; pi-ai 1.6
                ``disablePreferredStrictTools``); ``require`` ones are unaffected.

        Raises:
            ConfigurationError: ``strict: "require"`` on a model that cannot, or with a schema
                strict mode cannot take; the text names the tool, the model and why.
        """
        sampling = self.constrained_sampling
        if not isinstance(sampling, JsonSchemaSampling):
            return None
        if not prefer and sampling.strict == "prefer":
            return None
        if supported:
            try:
                make_strict_json_schema(self.parameters, unsupported)
                return True
            except UnsupportedStrictSchema as exc:
                if sampling.strict != "require":
                    return None
                raise ConfigurationError(
                    f"{self._where(model)} requires JSON-schema constrained sampling, but {exc}"
                ) from None
        if sampling.strict == "require":
            raise ConfigurationError(
                f"{self._where(model)} requires JSON-schema constrained sampling, but the model"
                " does not support strict tools"
            )
        return None

    def wire_parameters(self, strict: bool | None) -> dict[str, Any]:
        """The schema to send: made strict (:func:`make_strict_json_schema`) when ``strict``."""
        return make_strict_json_schema(self.parameters) if strict else self.parameters

    def grammar(self, model: Model, supported: bool) -> ToolGrammar | None:
        """How this tool goes as an OpenAI grammar tool, or ``None`` (a function tool).

        ``None`` without a grammar config or where the model's compat lacks
        ``supportsOpenAIGrammarTools`` (pi-ai 1.6 ``resolveGrammarConstrainedSampling``).

        Raises:
            ConfigurationError: no non-blank variant, or a schema without exactly one required
                string property to carry the text.
        """
        sampling = self.constrained_sampling
        if not isinstance(sampling, GrammarSampling) or not supported:
            return None
        lark = sampling.variants.get("openai_lark") or ""
        regex = sampling.variants.get("openai_regex") or ""
        if not lark.strip() and not regex.strip():
            raise ConfigurationError(
                f"{self._where(model)} cannot use grammar constrained sampling: no supported"
                " grammar variant (openai_lark, openai_regex) was provided"
            )
        try:
            prop = grammar_input_property(self.parameters)
        except ValueError as exc:
            raise ConfigurationError(
                f"{self._where(model)} cannot use grammar constrained sampling: {exc}"
            ) from None
        if lark.strip():
            return ToolGrammar("lark", lark, prop)
        return ToolGrammar("regex", regex, prop)
