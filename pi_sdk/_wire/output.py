"""Typed answers (structured output): the schema a reply must follow, and the parsed result.

``StreamOptions(output=...)`` takes a pydantic model class, any type pydantic can validate
(``list[int]``, a ``TypedDict``, a dataclass), an :class:`Output` or a JSON Schema ``dict``.
Each wire API sends it with its own mechanism (docs/structured-output.md); the reply's text
is parsed once, when the call ended (nothing runs per event), into
:attr:`pi_sdk.AssistantMessage.output`, a :class:`StructuredOutput`. A reply that is not valid
is data, not an exception: ``output.error`` says why and ``output.raw`` keeps the text.

References for the shape users expect: pydantic-ai's ``output_type`` and openai-agents'
``output_type`` (a model class in, a validated instance out). pi-mono has no equivalent.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = ["OUTPUT_TOOL_NAME", "Output", "OutputMode", "StructuredOutput", "parse_output"]

OUTPUT_TOOL_NAME = "final_answer"
"""The tool a provider forces when its API (or the model) has no native schema mechanism."""

OutputMode = Literal["auto", "native", "tool"]
"""``auto``: the API's native mechanism where the model has it, else a forced tool;
``native``: always the native mechanism; ``tool``: always a forced tool."""

_NAME = re.compile(r"[^A-Za-z0-9_-]")
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_RAW_LIMIT = 500


@dataclass(frozen=True, kw_only=True)
class StructuredOutput:
    """A reply parsed against the requested output schema.

    ``value`` is the validated object (an instance of the model class, or the JSON value for
    a JSON Schema ``dict``) or ``None`` when the reply did not validate; ``error`` is then the
    reason (JSON syntax or the validator's messages); ``raw`` is always the reply's text.
    """

    value: Any = None
    raw: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the reply validated (``error is None``)."""
        return self.error is None


@dataclass(frozen=True)
class Output:
    """The schema a reply must follow, with its name and how it is sent.

    Build one from a pydantic model class / type (``Output(Weather)``) or a JSON Schema
    (``Output({"type": "object", ...}, name="weather")``). ``StreamOptions(output=...)``
    accepts either directly; use this class to set ``name``, ``description`` or ``mode``.

    Raises:
        TypeError: ``type`` is neither a JSON Schema dict nor a type pydantic can build a
            schema for.
        ValueError: ``mode`` is not ``"auto"``, ``"native"`` or ``"tool"``.
    """

    type: Any
    name: str | None = None
    """Schema name sent to the vendor (Chat/Responses ``name``, the forced tool's
    description); default: the model class's name, else ``"output"``."""
    description: str | None = None
    mode: OutputMode = "auto"
    schema: dict[str, Any] = field(init=False, repr=False, compare=False)
    """The JSON Schema, as given or as pydantic writes it."""
    strict_schema: dict[str, Any] | None = field(init=False, repr=False, compare=False)
    """``schema`` with ``additionalProperties: false`` on every object, when every object's
    properties are all required (what OpenAI's and Anthropic's strict modes accept);
    ``None`` when the schema cannot be strict (then it is sent without ``strict``)."""
    _adapter: TypeAdapter[Any] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        target = self.type
        if isinstance(target, Output):
            raise TypeError("Output(Output(...)): pass the type or schema itself")
        if self.mode not in ("auto", "native", "tool"):
            raise ValueError(f"Output mode must be 'auto', 'native' or 'tool'; got {self.mode!r}")
        if isinstance(target, dict):
            schema = copy.deepcopy(cast("dict[str, Any]", target))
            default_name = str(schema.get("title") or "output")
            adapter = None
        else:
            try:
                adapter = TypeAdapter(target)
                schema = adapter.json_schema()
            except Exception as exc:  # pydantic raises several types for a bad type
                raise TypeError(
                    f"output must be a pydantic model, a type pydantic validates, or a JSON"
                    f" Schema dict; got {target!r} ({exc})"
                ) from exc
            default_name = getattr(target, "__name__", None) or "output"
        object.__setattr__(self, "schema", schema)
        object.__setattr__(self, "_adapter", adapter)
        object.__setattr__(self, "strict_schema", _strict(schema))
        name = _NAME.sub("_", self.name or default_name)[:64] or "output"
        object.__setattr__(self, "name", name)
        if self.description is None and isinstance(target, type):
            doc = cast("type[Any]", target).__doc__
            if doc and issubclass(cast("type[Any]", target), BaseModel):
                object.__setattr__(self, "description", " ".join(doc.split()))

    @classmethod
    def of(cls, output: Any) -> Output:
        """``output`` as an :class:`Output` (returned as is when it already is one)."""
        return output if isinstance(output, Output) else cls(output)

    @property
    def wire_schema(self) -> dict[str, Any]:
        """The schema to send: ``strict_schema`` when there is one, else ``schema``."""
        return self.strict_schema if self.strict_schema is not None else self.schema

    def validate_text(self, text: str) -> StructuredOutput:
        """Parse and validate a reply's text; failures are data (see :class:`StructuredOutput`).

        A Markdown code fence around the JSON is removed first (models without a native
        mechanism sometimes add one).
        """
        body = text.strip()
        fenced = _FENCE.match(body)
        if fenced:
            body = fenced.group(1).strip()
        if self._adapter is None:
            return _validate_schema(self.schema, body, text)
        try:
            value = self._adapter.validate_json(body)
        except ValidationError as exc:
            return StructuredOutput(raw=text, error=_pydantic_reason(exc, text))
        return StructuredOutput(value=value, raw=text)


def parse_output(message: Any, output: Any) -> StructuredOutput:
    """Parse an :class:`~pi_sdk.AssistantMessage`'s answer against ``output``.

    ``output`` is a model class / type, a JSON Schema dict or an :class:`Output`. The answer
    is the message's text (its text blocks joined), or the arguments of a forced
    ``final_answer`` tool call left in it. A message that ended in ``error`` / ``aborted``
    or was cut at max tokens is reported as such. Used on the result of every call made with
    ``StreamOptions(output=...)``; call it yourself to parse a stored message again.
    """
    spec = Output.of(output)
    texts: list[str] = []
    for block in message.content:
        kind = block.type
        if kind == "text":
            texts.append(block.text)
        elif kind == "toolCall" and block.name == OUTPUT_TOOL_NAME:
            texts.append(json.dumps(block.arguments, ensure_ascii=False))
    raw = "".join(texts)
    stop = message.stop_reason
    if stop in ("error", "aborted"):
        reason = message.error_message or stop
        return StructuredOutput(raw=raw, error=f"the reply ended with {stop}: {reason}")
    if not raw.strip():
        return StructuredOutput(raw=raw, error="the reply has no answer text")
    result = spec.validate_text(raw)
    if not result.ok and stop == "length":
        return StructuredOutput(
            raw=raw,
            error="the reply stopped at max tokens before the answer was complete"
            f" ({result.error})",
        )
    return result


def _validate_schema(schema: dict[str, Any], body: str, raw: str) -> StructuredOutput:
    from jsonschema.validators import validator_for

    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        return StructuredOutput(raw=raw, error=f"not valid JSON: {exc}; received: {_bounded(raw)}")
    validator: Any = validator_for(schema)(schema)
    problems: list[Any] = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if problems:
        lines = [f"{_path(list(e.absolute_path))}: {e.message}" for e in problems]
        return StructuredOutput(raw=raw, error="does not match the schema: " + "; ".join(lines))
    return StructuredOutput(value=value, raw=raw)


def _pydantic_reason(exc: ValidationError, raw: str) -> str:
    problems = exc.errors()  # loc, msg and type: the text is built from those alone
    if problems and problems[0]["type"] == "json_invalid":
        reason = str(problems[0]["msg"]).removeprefix("Invalid JSON: ")  # said once, below
        return f"not valid JSON: {reason}; received: {_bounded(raw)}"
    lines = [f"{_path(list(p['loc']))}: {p['msg']}" for p in problems]
    return "does not match the schema: " + "; ".join(lines)


def _path(parts: list[Any]) -> str:
    return "/" + "/".join(str(p) for p in parts) if parts else "(root)"


def _bounded(raw: str) -> str:
    return raw if len(raw) <= _RAW_LIMIT else raw[:_RAW_LIMIT] + f"... ({len(raw)} characters)"


def _strict(schema: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` with every object closed, or ``None`` when some property is optional."""
    result = copy.deepcopy(schema)
    return result if _close_objects(result) else None


def _close_objects(node: Any) -> bool:
    if isinstance(node, list):
        return all(_close_objects(item) for item in cast("list[Any]", node))
    if not isinstance(node, dict):
        return True
    obj = cast("dict[str, Any]", node)
    ok = True
    if obj.get("type") == "object" or "properties" in obj:
        extra = obj.get("additionalProperties")
        if extra not in (None, False):
            ok = False
        obj["additionalProperties"] = False
        properties = cast("dict[str, Any]", obj.get("properties") or {})
        if set(properties) != set(obj.get("required") or ()):
            ok = False
    for key, value in obj.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            children = cast("dict[str, Any]", value).values()
            ok = all([_close_objects(child) for child in children]) and ok
        elif key not in ("enum", "const", "default", "examples", "required"):
            ok = _close_objects(value) and ok
    return ok
