"""Agent messages: LLM messages plus application-defined types, and the one place they convert.

An agent transcript holds :data:`AgentMessage` values: the three LLM messages (``user``,
``assistant``, ``toolResult``) or any pydantic model whose ``role`` is something else (a UI
notice, a compaction summary, a bash-execution record...) and which, like the LLM messages, has
a ``timestamp`` (:class:`CustomAgentMessage`). Custom messages never reach a model
directly: before every model call the agent loop runs ``convert_to_llm`` (pi-mono
``convertToLlm``, pi-spec §8.1), and :func:`default_convert_to_llm` is the default.

Custom types are registered with :func:`register_message_type` together with their converter;
plugins do the same through the ``register_message_types`` hook, which this registry asks on
first use and again whenever the active plugin manager changes (hand registrations belong to
the manager active at the time and take precedence over a plugin's type for the same role).
A registered type can also be read back from JSON with :func:`agent_message_from_dict`
(session files).

Example:
    ```python
    class Note(BaseModel):
        role: Literal["note"] = "note"
        text: str
        timestamp: int = Field(default_factory=pi_sdk.now_ms)

    pi_sdk.register_message_type(Note, lambda n: [UserMessage(content=f"[note] {n.text}")])
    ```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast, get_args

from pydantic import BaseModel, TypeAdapter

from pi_sdk._plugins.calling import PerManager
from pi_sdk._wire.argument_kinds import described
from pi_sdk.errors import ConfigurationError
from pi_sdk.types import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

if TYPE_CHECKING:
    from pi_sdk._plugins.manager import PluginManager
    from pi_sdk._wire.agent_types import AgentMessage

__all__ = [
    "LLM_EXACT_TYPES",
    "LLM_ROLES",
    "LLM_TYPES",
    "MessageConverter",
    "agent_message_from_dict",
    "check_agent_message",
    "check_prompt",
    "is_plain_llm_list",
    "convert_message_to_llm",
    "default_convert_to_llm",
    "get_message_types",
    "is_llm_message",
    "register_message_type",
    "unregister_message_type",
]


MessageConverter: TypeAlias = Callable[[Any], Sequence[Message]]
"""``convert(message) -> list[Message]``: what the model sees for one custom message.

Contract: synchronous, must not raise; an empty list hides the message from the model.
"""

LLM_ROLES = frozenset({"system", "user", "assistant", "toolResult"})
"""Roles of the messages a model understands; custom types must use another role."""

LLM_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolResultMessage)
"""The LLM message classes (``isinstance`` checks)."""
LLM_EXACT_TYPES: frozenset[type] = frozenset(LLM_TYPES)
"""The same, for exact-type checks in C (``LLM_EXACT_TYPES.issuperset(map(type, messages))``)."""
_adapter: list[TypeAdapter[Message]] = []  # built on first use (keeps `import pi_sdk` cheap)
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class _Entry:
    message_type: type[BaseModel]
    role: str
    convert: MessageConverter
    source_id: str | None


@dataclass(slots=True)
class _Registry:
    """One manager's message types: by hand, and the combined view (plugins, then by hand)."""

    hand: dict[type[BaseModel], _Entry] = field(default_factory=dict[type[BaseModel], _Entry])
    by_type: dict[type[BaseModel], _Entry] = field(default_factory=dict[type[BaseModel], _Entry])
    by_role: dict[str, _Entry] = field(default_factory=dict[str, _Entry])

    def put(self, entry: _Entry, *, replace: bool, again_ok: bool = False) -> None:
        """Add ``entry`` to the combined view (rules of :func:`register_message_type`).

        ``again_ok``: the same type registered again refreshes it (two plugins sharing one).
        """
        existing = self.by_role.get(entry.role) or self.by_type.get(entry.message_type)
        again = again_ok and existing is not None and existing.message_type is entry.message_type
        if existing is not None and not replace and not again:
            raise ConfigurationError(
                f"a message type for role {entry.role!r} is already registered"
                f" ({existing.message_type.__name__}, by {existing.source_id or 'unknown'});"
                " pass replace=True to override it"
            )
        if existing is not None:
            self.drop(existing.message_type)
        self.by_type[entry.message_type] = entry
        self.by_role[entry.role] = entry

    def drop(self, message_type: type[BaseModel]) -> None:
        """Remove a type from the combined view."""
        entry = self.by_type.pop(message_type, None)
        if entry is not None and self.by_role.get(entry.role) is entry:
            del self.by_role[entry.role]


def _collect(pm: PluginManager, registry: _Registry) -> None:
    """Ask each plugin's ``register_message_types`` (registration order), then lay hand ones on."""
    fresh = _Registry(hand=registry.hand)
    for impl in pm.hook.register_message_types.get_hookimpls():
        source = f"plugin:{impl.plugin_name}"

        def register(
            message_type: type[BaseModel],
            convert_to_llm: Callable[[Any], Sequence[Message]],
            *,
            replace: bool = False,
            source: str = source,
        ) -> None:
            entry = _entry(message_type, convert_to_llm, source)
            fresh.put(entry, replace=replace, again_ok=True)

        impl.function(*[register for _ in impl.argnames])  # the spec has one argument
    for entry in registry.hand.values():
        fresh.put(entry, replace=True)
    registry.by_type, registry.by_role = fresh.by_type, fresh.by_role


_registries = PerManager(_Registry, _collect)


def _role_of(message_type: type[BaseModel]) -> str:
    field = message_type.model_fields.get("role")
    if field is None:
        raise ConfigurationError(f"{message_type.__name__} has no 'role' field")
    if isinstance(field.default, str):
        return field.default
    literal = get_args(field.annotation)
    if len(literal) == 1 and isinstance(literal[0], str):
        return literal[0]
    raise ConfigurationError(
        f"{message_type.__name__}.role must be a Literal with one string value"
        ' (e.g. role: Literal["note"] = "note")'
    )


def register_message_type(
    message_type: type[M],
    convert: Callable[[M], Sequence[Message]],
    *,
    replace: bool = False,
    source_id: str | None = None,
) -> None:
    """Register a custom agent message type and how it becomes LLM messages.

    Args:
        message_type: A pydantic model with a ``role`` field holding one ``Literal`` string
            other than ``user``, ``assistant`` and ``toolResult``.
        convert: ``convert(message) -> list[Message]``; an empty list hides the message.
        replace: Allow replacing an earlier registration of the same type or role.
        source_id: Who registered it, named in the error of a later clash.

    Raises:
        ConfigurationError: ``message_type`` is not a pydantic model, its role is missing or an
            LLM role, or the type/role is already registered and ``replace`` is false.
    """
    registry = _registries.current()
    entry = _entry(message_type, convert, source_id)
    registry.put(entry, replace=replace)
    registry.hand = {t: e for t, e in registry.hand.items() if e.role != entry.role}
    registry.hand[message_type] = entry


def _entry(
    message_type: type[BaseModel], convert: MessageConverter, source_id: str | None
) -> _Entry:
    """Check a message type (see :func:`register_message_type`) and describe it."""
    if not (isinstance(message_type, type) and issubclass(message_type, BaseModel)):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ConfigurationError(
            f"message type must be a pydantic model class, got {message_type!r}"
        )
    role = _role_of(message_type)
    if role in LLM_ROLES:
        raise ConfigurationError(
            f"{message_type.__name__} uses the LLM role {role!r};"
            " custom messages need a role of their own"
        )
    return _Entry(message_type, role, convert, source_id)


def unregister_message_type(message_type: type[BaseModel]) -> None:
    """Forget a custom message type registered by hand (no error if it is unknown).

    A plugin's types leave with the plugin (``pm.unregister(...)``).
    """
    registry = _registries.current()
    if registry.hand.pop(message_type, None) is not None:
        _registries.invalidate()


def get_message_types() -> dict[str, type[BaseModel]]:
    """Return the registered custom message types keyed by role (installed plugins' included)."""
    return {role: entry.message_type for role, entry in _registries.current().by_role.items()}


def is_llm_message(message: object) -> bool:
    """True for :class:`UserMessage`, :class:`AssistantMessage` and :class:`ToolResultMessage`."""
    return isinstance(message, LLM_TYPES)


def _entry_for(message: object) -> _Entry | None:
    by_type = _registries.current().by_type
    for cls in type(message).__mro__:
        entry = by_type.get(cls)
        if entry is not None:
            return entry
    return None


def convert_message_to_llm(message: AgentMessage) -> list[Message]:
    """Return what the model sees for one transcript entry.

    LLM messages pass through unchanged; a registered custom type goes through its converter;
    pi-coding-agent's built-in types (:mod:`pi_sdk._wire.pi_messages`) are converted as pi
    does; any other custom message gives ``[]`` (pi-mono's default filter drops it).
    """
    if isinstance(message, LLM_TYPES):
        return [message]
    entry = _entry_for(message)
    if entry is not None:
        return list(entry.convert(message))
    # pi-coding-agent's types load with the first message that is none of the above (first use)
    from pi_sdk._wire import pi_messages as pi

    if isinstance(message, pi.PiCustomMessage | pi.PiBranchSummary | pi.PiCompactionSummary):
        return pi.pi_message_to_llm(message)
    return []


def default_convert_to_llm(messages: Iterable[AgentMessage]) -> list[Message]:
    """The default ``convert_to_llm``: LLM messages kept, custom ones converted or dropped.

    Contract (pi-mono ``convertToLlm``): this is the only place custom messages become LLM
    messages; it runs before every model call, after ``transform_context``. Custom messages of
    unregistered types are left out (pi-mono keeps only user, assistant and toolResult).
    """
    if not isinstance(messages, list | tuple):
        messages = list(messages)
    if LLM_EXACT_TYPES.issuperset(map(type, messages)):  # the common case, checked in C
        return cast(list[Message], list(messages))
    out: list[Message] = []
    exact = LLM_EXACT_TYPES
    for message in messages:
        if type(message) in exact:  # the common case, without ABC isinstance machinery
            out.append(message)  # pyright: ignore[reportArgumentType]
        elif isinstance(message, LLM_TYPES):
            out.append(message)
        else:
            out.extend(convert_message_to_llm(message))
    return out


def is_plain_llm_list(messages: Sequence[Any]) -> bool:
    """True when every item is exactly a user, assistant or tool-result message (no subclass).

    Such a list needs no validation to go into a :class:`pi_sdk.Context` (the agent loop skips
    pydantic's per-message pass, which made long runs quadratic in practice).
    """
    return LLM_EXACT_TYPES.issuperset(map(type, messages))


def agent_message_from_dict(data: Mapping[str, Any]) -> AgentMessage:
    """Read one transcript entry from pi-mono-shaped JSON (``{"role": ..., ...}``).

    Roles of pi-coding-agent's own messages (``custom``, ``branchSummary``,
    ``compactionSummary``) read as its built-in types unless a type is registered for them.

    Raises:
        ConfigurationError: the role is neither an LLM role, a registered custom type nor one
            of pi-coding-agent's.
        pydantic.ValidationError: the data does not fit the type.
    """
    role = data.get("role")
    if role in LLM_ROLES:
        if not _adapter:
            _adapter.append(TypeAdapter(Message))
        return _adapter[0].validate_python(data)
    by_role = _registries.current().by_role
    entry = by_role.get(role) if isinstance(role, str) else None
    if entry is None and isinstance(role, str):
        from pi_sdk._wire.pi_messages import PI_MESSAGE_TYPES

        if role in PI_MESSAGE_TYPES:
            return cast("AgentMessage", PI_MESSAGE_TYPES[role].model_validate(data))
    if entry is None:
        known = ", ".join(sorted(LLM_ROLES | set(by_role)))
        raise ConfigurationError(f"unknown message role {role!r} (known: {known})")
    # A registered type has a role; its timestamp is the type's promise (CustomAgentMessage).
    return cast("AgentMessage", entry.message_type.model_validate(data))


def _has_content(message: UserMessage) -> bool:
    content = message.content
    if isinstance(content, str):
        return bool(content.strip())
    return any(not isinstance(block, TextContent) or block.text.strip() for block in content)


def check_agent_message(message: object, caller: str, where: str = "") -> AgentMessage:
    """``message`` itself when it is a message (anything with a ``str`` ``role``).

    Raises:
        TypeError: anything else, naming ``caller`` (``"prompt"``, ``"steer"``, ...), what it
            got and ``where`` it was (``" (message 1)"``); a dict is pointed at
            :func:`agent_message_from_dict`.
    """
    if isinstance(getattr(message, "role", None), str):
        return cast("AgentMessage", message)
    got = described(message)
    takes = "a message (pi_sdk.UserMessage, ..., or a custom message with a role)"
    takes += " or a list of messages" if caller == "prompt" else ""
    hint = ""
    if isinstance(message, dict):
        hint = " (from JSON? pi_sdk.agent_message_from_dict reads it)"
    raise TypeError(f"{caller}() takes text, {takes}; got {got}{where}{hint}")


def check_prompt(messages: Sequence[AgentMessage]) -> None:
    """Reject a prompt that would send the model nothing (``Agent.prompt``).

    Raises:
        ValueError: no messages, or a user message with neither non-blank text nor an image
            (vendors answer such a request with an error, e.g. Anthropic HTTP 400 for
            ``messages: []`` or a blank text block). Custom messages are not judged.
    """
    if not messages:
        raise ValueError("prompt() needs at least one message; got an empty list")
    for index, message in enumerate(messages):
        check_agent_message(message, "prompt", "" if len(messages) == 1 else f" (message {index})")
        if isinstance(message, UserMessage) and not _has_content(message):
            where = "" if len(messages) == 1 else f" (message {index})"
            raise ValueError(
                f"prompt() got a user message with no content{where}: give non-blank text or"
                " an image"
            )
