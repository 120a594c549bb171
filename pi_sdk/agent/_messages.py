"""Agent messages: LLM messages plus application-defined types, and the one place they convert.

An agent transcript holds :data:`AgentMessage` values: the three LLM messages (``user``,
``assistant``, ``toolResult``) or any pydantic model whose ``role`` is something else (a UI
notice, a compaction summary, a bash-execution record...) and which, like the LLM messages, has
a ``timestamp`` (:class:`CustomAgentMessage`). Custom messages never reach a model
directly: before every model call the agent loop runs ``convert_to_llm`` (pi-mono
``convertToLlm``, pi-spec §8.1), and :func:`default_convert_to_llm` is the default.

Custom types are registered with :func:`register_message_type` together with their converter;
plugins do the same through the ``register_message_types`` hook, which the plugin manager feeds
into this registry. A registered type can also be read back from JSON with
:func:`agent_message_from_dict` (session files).

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
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, TypeVar, cast, get_args

from pydantic import BaseModel, TypeAdapter

from pi_sdk.errors import ConfigurationError
from pi_sdk.types import AssistantMessage, Message, ToolResultMessage, UserMessage

__all__ = [
    "AgentMessage",
    "CustomAgentMessage",
    "LLM_ROLES",
    "MessageConverter",
    "agent_message_from_dict",
    "convert_message_to_llm",
    "default_convert_to_llm",
    "get_message_types",
    "is_llm_message",
    "register_message_type",
    "unregister_message_type",
    "unregister_message_types",
]


class CustomAgentMessage(Protocol):
    """What the type checker knows of a custom transcript entry: a ``role`` and a ``timestamp``.

    Any object with these two attributes fits (structural typing); in practice a pydantic model,
    since registration, conversion and session files need one::

        class Note(BaseModel):
            role: Literal["note"] = "note"
            text: str
            timestamp: int = Field(default_factory=pi_sdk.now_ms)

    With it, ``m.role`` and ``m.timestamp`` type-check on every :data:`AgentMessage`; anything
    else is read after narrowing (``isinstance(m, Note)``, ``isinstance(m, AssistantMessage)``).
    A model without ``timestamp`` still works at run time (nothing in pi-sdk reads it; only
    ``role`` is checked by :func:`register_message_type`), but a type checker rejects it where
    an :data:`AgentMessage` is expected.
    """

    @property
    def role(self) -> str:
        """The message's own role: not ``user``, ``assistant`` or ``toolResult``."""
        ...

    @property
    def timestamp(self) -> int:
        """Milliseconds since the Unix epoch, as on the LLM messages (pi-mono)."""
        ...


AgentMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | CustomAgentMessage
"""A transcript entry: an LLM message, or a custom message (:class:`CustomAgentMessage`)."""

MessageConverter: TypeAlias = Callable[[Any], Sequence[Message]]
"""``convert(message) -> list[Message]``: what the model sees for one custom message.

Contract: synchronous, must not raise; an empty list hides the message from the model.
"""

LLM_ROLES = frozenset({"user", "assistant", "toolResult"})
"""Roles of the messages a model understands; custom types must use another role."""

_LLM_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)
_adapter: list[TypeAdapter[Message]] = []  # built on first use (keeps `import pi_sdk` cheap)
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class _Entry:
    message_type: type[BaseModel]
    role: str
    convert: MessageConverter
    source_id: str | None


_by_type: dict[type[BaseModel], _Entry] = {}
_by_role: dict[str, _Entry] = {}


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
        source_id: Who registered it (a plugin name), for :func:`unregister_message_types`.

    Raises:
        ConfigurationError: ``message_type`` is not a pydantic model, its role is missing or an
            LLM role, or the type/role is already registered and ``replace`` is false.
    """
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
    existing = _by_role.get(role) or _by_type.get(message_type)
    if existing is not None and not replace:
        raise ConfigurationError(
            f"a message type for role {role!r} is already registered"
            f" ({existing.message_type.__name__}, by {existing.source_id or 'unknown'});"
            " pass replace=True to override it"
        )
    if existing is not None:
        unregister_message_type(existing.message_type)
    entry = _Entry(message_type, role, convert, source_id)
    _by_type[message_type] = entry
    _by_role[role] = entry


def unregister_message_type(message_type: type[BaseModel]) -> None:
    """Forget a registered custom message type (no error if it is unknown)."""
    entry = _by_type.pop(message_type, None)
    if entry is not None and _by_role.get(entry.role) is entry:
        del _by_role[entry.role]


def unregister_message_types(source_id: str) -> None:
    """Forget every message type registered with ``source_id`` (a plugin being removed)."""
    for entry in [e for e in _by_type.values() if e.source_id == source_id]:
        unregister_message_type(entry.message_type)


def get_message_types() -> dict[str, type[BaseModel]]:
    """Return the registered custom message types keyed by role (installed plugins' included)."""
    _load_plugin_types()
    return {role: entry.message_type for role, entry in _by_role.items()}


def is_llm_message(message: object) -> bool:
    """True for :class:`UserMessage`, :class:`AssistantMessage` and :class:`ToolResultMessage`."""
    return isinstance(message, _LLM_TYPES)


def _load_plugin_types() -> bool:
    """Load the installed plugins (once) so their message types are registered; True if new."""
    from pi_sdk.plugins._manager import get_plugin_manager

    before = len(_by_type)
    get_plugin_manager()
    return len(_by_type) != before


def _entry_for(message: object, *, load: bool = True) -> _Entry | None:
    for cls in type(message).__mro__:
        entry = _by_type.get(cls)
        if entry is not None:
            return entry
    if load and _load_plugin_types():
        return _entry_for(message, load=False)
    return None


def convert_message_to_llm(message: AgentMessage) -> list[Message]:
    """Return what the model sees for one transcript entry.

    LLM messages pass through unchanged; a registered custom type goes through its converter;
    an unregistered custom message gives ``[]`` (pi-mono's default filter drops it).
    """
    if isinstance(message, _LLM_TYPES):
        return [message]
    entry = _entry_for(message)
    return list(entry.convert(message)) if entry is not None else []


def default_convert_to_llm(messages: Iterable[AgentMessage]) -> list[Message]:
    """The default ``convert_to_llm``: LLM messages kept, custom ones converted or dropped.

    Contract (pi-mono ``convertToLlm``): this is the only place custom messages become LLM
    messages; it runs before every model call, after ``transform_context``. Custom messages of
    unregistered types are left out (pi-mono keeps only user, assistant and toolResult).
    """
    out: list[Message] = []
    for message in messages:
        if isinstance(message, _LLM_TYPES):
            out.append(message)
        else:
            out.extend(convert_message_to_llm(message))
    return out


def agent_message_from_dict(data: Mapping[str, Any]) -> AgentMessage:
    """Read one transcript entry from pi-mono-shaped JSON (``{"role": ..., ...}``).

    Raises:
        ConfigurationError: the role is neither an LLM role nor a registered custom type.
        pydantic.ValidationError: the data does not fit the type.
    """
    role = data.get("role")
    if role in LLM_ROLES:
        if not _adapter:
            _adapter.append(TypeAdapter(Message))
        return _adapter[0].validate_python(data)
    entry = _by_role.get(role) if isinstance(role, str) else None
    if entry is None and isinstance(role, str) and _load_plugin_types():
        entry = _by_role.get(role)
    if entry is None:
        known = ", ".join(sorted(LLM_ROLES | set(_by_role)))
        raise ConfigurationError(f"unknown message role {role!r} (known: {known})")
    # A registered type has a role; its timestamp is the type's promise (CustomAgentMessage).
    return cast(AgentMessage, entry.message_type.model_validate(data))
