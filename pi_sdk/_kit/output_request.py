"""What a provider needs to ask for a typed answer: the forced ``final_answer`` tool.

Native mechanisms (Chat ``response_format``, Responses ``text.format``, Gemini
``responseJsonSchema``, Anthropic ``output_config.format``, Bedrock ``outputConfig``) are
written by each wire API's request module from :class:`pi_sdk.options.Output`; the forced
tool is the same everywhere, so it lives here. The reply's tool call is turned back into the
answer's text when the call ends (``pi_sdk._stream.event_stream.settle_output``).
"""

from __future__ import annotations

from pi_sdk._wire.output import OUTPUT_TOOL_NAME, Output
from pi_sdk.types import Context, SystemMessage, Tool

__all__ = ["output_tool", "with_output_tool"]


def output_tool(spec: Output) -> Tool:
    """The ``final_answer`` tool whose parameters are ``spec``'s schema.

    Every API's tool parameters must be an object schema, so a schema of another type (a
    list, a string) is refused: wrap the value in a model.

    Raises:
        ConfigurationError: the schema is not an object schema.
    """
    schema = spec.wire_schema
    if schema.get("type") != "object":
        from pi_sdk.errors import ConfigurationError

        raise ConfigurationError(
            f"output {spec.name!r}: a forced answer tool needs an object schema (type:"
            f" object); got type {schema.get('type')!r}; wrap the value in a model"
        )
    description = f"Give the final answer ({spec.name}) as this tool's arguments."
    if spec.description:
        description += f" {spec.description}"
    return Tool(name=OUTPUT_TOOL_NAME, description=description, parameters=schema)


def with_output_tool(context: Context, spec: Output) -> Context:
    """A shallow copy of ``context`` whose tools end with :func:`output_tool` ``(spec)``.

    A context in transcript form (a leading :class:`~pi_sdk.SystemMessage`, no shorthand)
    gets the tool on a copy of its leading system message; otherwise it joins
    ``context.tools`` (the shorthand, folded into the leading message by
    :func:`pi_sdk.normalize_context`). The input is not changed.
    """
    tool = output_tool(spec)
    lead = context.messages[0] if context.messages else None
    if context.system_prompt is None and context.tools is None and isinstance(lead, SystemMessage):
        lead = lead.model_copy(update={"tools_added": [*(lead.tools_added or ()), tool]})
        return context.model_copy(update={"messages": [lead, *context.messages[1:]]})
    return context.model_copy(update={"tools": [*(context.tools or ()), tool]})
