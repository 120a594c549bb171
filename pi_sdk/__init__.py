"""pi-sdk: one streaming event protocol for every LLM vendor, an agent loop, and plugins.

A Python take on pi-mono's pi-ai and pi-agent-core. Provider packages (``pi-sdk-anthropic``,
``pi-sdk-openai``, ``pi-sdk-google``) register through the ``pi_sdk`` entry-point group; importing
``pi_sdk`` imports no vendor SDK.
"""

from typing import TYPE_CHECKING, Any

from .abort import AbortController, AbortSignal
from .calls import apply_payload_hooks, complete, complete_sync, resolve_api_key, stream
from .errors import (
    AbortedError,
    AgentBusyError,
    AssistantError,
    ConfigurationError,
    ModelNotFoundError,
    PiSdkError,
    PluginLoadError,
    ProviderNotFoundError,
    SessionFileError,
)
from .event_stream import AssistantMessageEventStream, ProviderError, new_assistant_message
from .events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    event_to_dict,
)
from .hookspecs import hookimpl
from .options import ForeignReasoning, StreamOptions
from .registry import (
    ApiProvider,
    StreamFunction,
    calculate_cost,
    get_api_key,
    get_api_provider,
    get_api_providers,
    get_model,
    get_models,
    get_providers,
    load_models_json,
    register_api_provider,
    register_model,
    unregister_api_providers,
)
from .sse import ServerSentEvent, iter_sse
from .transform import is_same_model, is_same_source, signature_origin, transform_messages
from .types import (
    AssistantMessage,
    Context,
    Cost,
    ImageContent,
    Message,
    Model,
    ModelCost,
    StopReason,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    now_ms,
)
from .unicode import sanitize_surrogates

if TYPE_CHECKING:
    from .partial_json import IncrementalJsonParser, parse_partial_json
    from .session import load_session, save_session


def __getattr__(name: str) -> Any:
    # Loaded on first use: only providers that stream tool arguments need it.
    if name in ("IncrementalJsonParser", "parse_partial_json"):
        from . import partial_json

        return getattr(partial_json, name)
    if name in ("load_session", "save_session"):  # session files: loaded on first use
        from . import session

        return getattr(session, name)
    raise AttributeError(f"module 'pi_sdk' has no attribute {name!r}")

__all__ = [
    "AbortController",
    "AbortSignal",
    "AbortedError",
    "AgentBusyError",
    "ApiProvider",
    "AssistantError",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "ConfigurationError",
    "Context",
    "Cost",
    "DoneEvent",
    "ErrorEvent",
    "ForeignReasoning",
    "ImageContent",
    "IncrementalJsonParser",
    "Message",
    "Model",
    "ModelCost",
    "ModelNotFoundError",
    "PiSdkError",
    "PluginLoadError",
    "ProviderError",
    "ProviderNotFoundError",
    "ServerSentEvent",
    "SessionFileError",
    "StartEvent",
    "StopReason",
    "StreamFunction",
    "StreamOptions",
    "TextContent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingContent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingLevel",
    "ThinkingStartEvent",
    "Tool",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "apply_payload_hooks",
    "calculate_cost",
    "complete",
    "complete_sync",
    "event_to_dict",
    "get_api_key",
    "get_api_provider",
    "get_api_providers",
    "get_model",
    "get_models",
    "get_providers",
    "hookimpl",
    "is_same_model",
    "is_same_source",
    "iter_sse",
    "load_models_json",
    "load_session",
    "new_assistant_message",
    "now_ms",
    "parse_partial_json",
    "register_api_provider",
    "register_model",
    "resolve_api_key",
    "sanitize_surrogates",
    "save_session",
    "signature_origin",
    "stream",
    "transform_messages",
    "unregister_api_providers",
]
