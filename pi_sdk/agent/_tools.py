"""Agent tools: a name, a description, a parameter schema and an async ``execute``.

pi-mono ``AgentTool`` (pi-spec §8.1). A tool is built one of three ways:

* :class:`AgentTool` with a JSON Schema dict: ``execute`` receives the validated ``dict``;
* :class:`AgentTool` with a pydantic model as ``parameters``: the JSON Schema is derived from the
  model and ``execute`` receives a model instance;
* :func:`tool` on a plain typed function: the schema comes from the signature and the
  docstring (Google style ``Args:`` give the parameter descriptions).

Arguments from the model are coerced and validated before the tool runs (pi-spec §6.2, see
:mod:`pi_sdk.agent._validation`); a failure is shown to the model as an error tool result. Tools
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

import asyncio
import copy
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from pi_sdk._abort import AbortSignal
from pi_sdk.agent._types import AgentToolResult, ToolResultContent, ToolUpdateCallback
from pi_sdk.errors import ToolArgumentsError
from pi_sdk.types import ImageContent, TextContent, Tool, ToolCall

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "AgentTool",
    "FunctionTool",
    "ToolExecute",
    "find_tool",
    "schema_from_model",
    "to_tool_result",
    "tool",
    "validate_tool_call",
]

ToolExecute: TypeAlias = Callable[
    [str, Any, AbortSignal, ToolUpdateCallback], Awaitable["AgentToolResult | Any"]
]
"""``execute(tool_call_id, args, signal, on_update) -> AgentToolResult``.

Contract: honour ``signal`` (return or raise soon after it aborts; the loop does not cancel
tools); raise to report failure (the message becomes an error result). A return value that is
not an :class:`AgentToolResult` is converted by :func:`to_tool_result`.
"""

_RESERVED = ("tool_call_id", "signal", "on_update")


class AgentTool:
    """A tool the agent can run.

    Subclass and override :meth:`execute`, or pass ``execute=``. Example:

    ```python
    class Add(BaseModel):
        a: int
        b: int

    async def add(call_id, args: Add, signal, on_update):
        return AgentToolResult.text(str(args.a + args.b))

    adder = AgentTool(name="add", description="Add two integers.", parameters=Add, execute=add)
    ```

    Attributes:
        name: Tool name the model calls (exact match).
        label: Human-readable name for UIs (default: ``name``).
        description: What the tool does, for the model.
        parameters: JSON Schema of the arguments (``{"type": "object", ...}``).
        args_model: The pydantic model arguments are validated into, or ``None`` (plain dict).
    """

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        parameters: dict[str, Any] | type[BaseModel] | None = None,
        execute: ToolExecute | None = None,
        label: str | None = None,
    ) -> None:
        """Define a tool.

        Args:
            name: Tool name; what the model calls.
            description: What the tool does and when to use it.
            parameters: A JSON Schema dict, or a pydantic model class from which the schema is
                derived (then ``execute`` receives validated model instances). ``None``: no
                arguments.
            execute: The implementation; omit it when subclassing and overriding
                :meth:`execute`.
            label: Display name for UIs.
        """
        self.name = name
        self.label = label or name
        self.description = description
        if isinstance(parameters, type):
            self.args_model: type[BaseModel] | None = parameters
            self.parameters: dict[str, Any] = schema_from_model(parameters)
        else:
            self.args_model = None
            self.parameters = parameters if parameters is not None else _EMPTY_OBJECT_SCHEMA()
        self._execute = execute
        self._validator: Validator | None = None
        self._wire: Tool | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def execute(
        self, tool_call_id: str, args: Any, signal: AbortSignal, on_update: ToolUpdateCallback
    ) -> AgentToolResult | Any:
        """Run the tool with validated ``args``; see :data:`ToolExecute` for the contract.

        Raises:
            NotImplementedError: no ``execute`` was given and the subclass did not override it.
        """
        if self._execute is None:
            raise NotImplementedError(f"tool {self.name!r} has no execute implementation")
        return await self._execute(tool_call_id, args, signal, on_update)

    def to_tool(self) -> Tool:
        """Return the wire :class:`pi_sdk.Tool` sent to the model (name, description, schema)."""
        if self._wire is None:
            self._wire = Tool(
                name=self.name, description=self.description, parameters=self.parameters
            )
        return self._wire

    def validate_arguments(self, arguments: dict[str, Any]) -> Any:
        """Coerce and validate the model's arguments (pi-spec §6.2).

        Returns:
            A coerced copy of the arguments (``dict``), or an ``args_model`` instance.

        Raises:
            ToolArgumentsError: the arguments do not fit; the text is pi-mono's and is shown
                to the model.
        """
        from pi_sdk.agent._validation import (
            compile_validator,
            format_validation_error,
            validate_arguments,
        )

        if self._validator is None:
            self._validator = compile_validator(self.parameters)
        args = validate_arguments(self.name, self.parameters, arguments, self._validator)
        if self.args_model is None:
            return args
        try:
            return self.args_model.model_validate(args)
        except ValidationError as exc:
            lines = [
                ("/".join(str(p) for p in err["loc"]) or "root", err["msg"]) for err in exc.errors()
            ]
            raise ToolArgumentsError(format_validation_error(self.name, lines, arguments)) from None


def _EMPTY_OBJECT_SCHEMA() -> dict[str, Any]:  # noqa: N802 - a constant factory
    return {"type": "object", "properties": {}}


# --- schemas from pydantic --------------------------------------------------------------------


def schema_from_model(model: type[BaseModel]) -> dict[str, Any]:
    """Return the JSON Schema of ``model`` with local ``$ref`` inlined where not recursive.

    Several vendor APIs accept only a subset of JSON Schema (Gemini function declarations,
    pi-mono's Anthropic conversion keeps only ``properties``/``required``), so ``$defs``
    references are expanded; recursive models keep their ``$defs``.
    """
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})
    inlined, recursive = _inline(schema, defs, ())
    if recursive:
        schema["$defs"] = defs
        return schema
    return cast(dict[str, Any], inlined)


def _inline(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> tuple[Any, bool]:
    if isinstance(node, list):
        items = [_inline(n, defs, stack) for n in cast(list[Any], node)]
        return [i for i, _ in items], any(r for _, r in items)
    if not isinstance(node, dict):
        return node, False
    node = cast(dict[str, Any], node)
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in stack or name not in defs:
            return node, True
        target, recursive = _inline(copy.deepcopy(defs[name]), defs, (*stack, name))
        if recursive:
            return node, True
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return merged, False
    out: dict[str, Any] = {}
    any_recursive = False
    for key, value in node.items():
        out[key], recursive = _inline(value, defs, stack)
        any_recursive = any_recursive or recursive
    return out, any_recursive


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
    if isinstance(value, TextContent | ImageContent):
        return AgentToolResult(content=[value])
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, TextContent | ImageContent) for v in cast(list[Any], value))
    ):
        return AgentToolResult(content=cast(list[ToolResultContent], value))
    from pydantic_core import to_jsonable_python

    text = json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)
    return AgentToolResult.text(text, details=value)


# --- tools from functions ---------------------------------------------------------------------

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
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
        if not line[:1].isspace() and _SECTION_HEADER.match(line):
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
    (``asyncio.to_thread``) so they never block the event loop.
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
            value = await asyncio.to_thread(self.function, **kwargs)
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
