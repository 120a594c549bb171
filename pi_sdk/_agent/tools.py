"""Agent tools: a name, a description, a parameter schema and an async ``execute``.

pi-mono ``AgentTool`` (pi-spec §8.1). A tool is built one of three ways:

* :class:`AgentTool` with a JSON Schema dict: ``execute`` receives the validated ``dict``;
* :class:`AgentTool` with a pydantic model as ``parameters``: the JSON Schema is derived from the
  model and ``execute`` receives a model instance;
* :func:`tool` on a plain typed function: the schema comes from the signature and the
  docstring (Google style ``Args:`` give the parameter descriptions).

Arguments from the model are coerced and validated before the tool runs (pi-spec §6.2, see
:mod:`pi_sdk._wire.validation`); a failure is shown to the model as an error tool result. Tools
report failure by raising: the loop turns the exception into an error result.

Example:
    ```python
    @pi_sdk.tool
    async def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        # The docstring's summary becomes the description and its Args: section the
        # parameter descriptions.
        return f"{city}: 21°{unit.upper()}"
    ```
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, create_model

from pi_sdk._agent.tool_thread import run_in_daemon_thread
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.agent_types import (
    AgentTool,
    AgentToolResult,
    ToolResultContent,
    ToolUpdateCallback,
)
from pi_sdk.types import DocumentContent, ImageContent, TextContent, ToolCall

if TYPE_CHECKING:
    pass

__all__ = [
    "FunctionTool",
    "find_tool",
    "to_tool_result",
    "tool",
    "validate_tool_call",
]

_RESERVED = ("tool_call_id", "signal", "on_update")


# --- results ----------------------------------------------------------------------------------


def to_tool_result(value: Any) -> AgentToolResult:
    """Turn what a tool returned into an :class:`AgentToolResult`.

    * an ``AgentToolResult``: unchanged;
    * ``str``: one text block;
    * a content block or a list of blocks: used as ``content``;
    * ``None``: empty content;
    * anything else (dict, list, number, pydantic model, dataclass): JSON text, and the value
      itself in ``details``.
    """
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult.text(value)
    if value is None:
        return AgentToolResult()
    if isinstance(value, TextContent | ImageContent | DocumentContent):
        return AgentToolResult(content=[value])
    if (
        isinstance(value, list)
        and value
        and all(
            isinstance(v, TextContent | ImageContent | DocumentContent)
            for v in cast(list[Any], value)
        )
    ):
        return AgentToolResult(content=cast(list[ToolResultContent], value))
    from pydantic_core import to_jsonable_python

    text = json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)
    return AgentToolResult.text(text, details=value)


# --- tools from functions ---------------------------------------------------------------------

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^([A-Z][A-Za-z ]*):\s*$")
_SECTIONS = frozenset(
    (
        "args arguments attention attributes caution danger error example examples hint"
        " important methods note notes parameters receive receives references return returns"
        " raise raises tip todo warn warning warnings warns yield yields"
    ).split()
    + ["keyword args", "keyword arguments", "other parameters", "see also"]
)
"""The section names of Google-style docstrings (Sphinx napoleon): another line ending in a
colon (``Supported filters:``) is part of the description."""
_ARG_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {parameter: description})."""
    if not doc:
        return "", {}
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in inspect.cleandoc(doc).splitlines():
        stripped = line.strip()
        header = _SECTION_HEADER.match(line)
        if header and header.group(1).strip().lower() in _SECTIONS:
            section = "args" if _ARGS_HEADER.match(line) else "other"
            current, arg_indent = None, None
            continue
        if section is None:
            description.append(line)
            continue
        if section != "args" or not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(line)
        if match and (arg_indent is None or indent <= arg_indent):
            arg_indent, current = indent, str(match.group(1))
            params[current] = match.group(2).strip()
        elif current is not None:
            params[current] = f"{params[current]} {stripped}".strip()
    return "\n".join(description).strip(), params


class FunctionTool(AgentTool):
    """A tool made from a typed Python function by :func:`tool`.

    The function's parameters (except ``tool_call_id``, ``signal`` and ``on_update``, which are
    passed through when declared) form a pydantic model; sync functions run in a worker thread
    (a daemon thread per call, :mod:`pi_sdk._agent.tool_thread`) so they never block the event
    loop, and one that ignores an abort never holds ``asyncio.run`` at shutdown.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        label: str | None = None,
    ) -> None:
        """Build a tool from ``function``; see :func:`tool`."""
        doc_description, doc_params = _parse_docstring(inspect.getdoc(function))
        signature = inspect.signature(function)
        hints = get_type_hints(function, include_extras=True)
        fields: dict[str, Any] = {}
        self._injected: list[str] = []
        for param in signature.parameters.values():
            if param.name in _RESERVED:
                self._injected.append(param.name)
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(
                    f"tool function {function.__name__}: *args/**kwargs are not supported"
                )
            if param.kind is param.POSITIONAL_ONLY:
                raise TypeError(
                    f"tool function {function.__name__}: positional-only parameter {param.name!r}"
                )
            annotation = hints.get(param.name, Any)
            default = ... if param.default is param.empty else param.default
            described = param.name in doc_params
            extra: dict[str, Any] = {"description": doc_params[param.name]} if described else {}
            fields[param.name] = (annotation, Field(default, **extra))
        tool_name = name or function.__name__
        model = create_model(
            f"{tool_name}_arguments",
            __config__=ConfigDict(extra="forbid"),
            **fields,
        )
        super().__init__(
            name=tool_name,
            description=description if description is not None else doc_description,
            parameters=model,
            label=label,
        )
        self.parameters.pop("title", None)
        self.function = function
        self._is_async = inspect.iscoroutinefunction(function)

    async def execute(
        self, tool_call_id: str, args: Any, signal: AbortSignal, on_update: ToolUpdateCallback
    ) -> AgentToolResult:
        """Call the function with the validated arguments; convert its return value."""
        fields: dict[str, Any] = type(cast(BaseModel, args)).model_fields
        kwargs: dict[str, Any] = {name: getattr(args, name) for name in fields}
        injected = {"tool_call_id": tool_call_id, "signal": signal, "on_update": on_update}
        for name in self._injected:
            kwargs[name] = injected[name]
        if self._is_async:
            value = await self.function(**kwargs)
        else:
            value = await run_in_daemon_thread(self.name, self.function, **kwargs)
        return to_tool_result(value)


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, label: str | None = None
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    label: str | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a typed function into an :class:`AgentTool` (usable as ``@tool`` or ``@tool(...)``).

    The schema is derived from the parameters' type hints (pydantic), the description from the
    docstring's text before its sections, and parameter descriptions from its ``Args:``
    section. Parameters named ``tool_call_id``, ``signal`` (:class:`pi_sdk.AbortSignal`) and
    ``on_update`` (:data:`pi_sdk.ToolUpdateCallback`) are not arguments: the loop passes them.
    The return value goes through :func:`to_tool_result`. Extra arguments are rejected.

    Args:
        function: The implementation, sync or async.
        name: Tool name (default: the function's name).
        description: Tool description (default: from the docstring).
        label: Display name for UIs.

    Raises:
        TypeError: the function takes ``*args``, ``**kwargs`` or positional-only parameters.
    """
    if function is not None:
        return FunctionTool(function, name=name, description=description, label=label)

    def decorate(fn: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(fn, name=name, description=description, label=label)

    return decorate


def find_tool(tools: Sequence[AgentTool], name: str) -> AgentTool | None:
    """Return the tool called exactly ``name``, or ``None``."""
    for candidate in tools:
        if candidate.name == name:
            return candidate
    return None


def validate_tool_call(tools: Sequence[AgentTool], tool_call: ToolCall) -> Any:
    """Find the tool for ``tool_call`` and validate its arguments (pi-mono ``validateToolCall``).

    Raises:
        LookupError: no tool has that name (text ``Tool "<name>" not found``).
        ToolArgumentsError: the arguments do not fit the schema.
    """
    found = find_tool(tools, tool_call.name)
    if found is None:
        raise LookupError(f'Tool "{tool_call.name}" not found')
    return found.validate_arguments(tool_call.arguments)
