"""What ``prompt`` and ``chat`` share: their options, the model, the tools, the Agent.

* ``-m PROVIDER/ID`` names a catalog model (``pi-sdk models``); the first ``/`` separates the
  provider, so ``openrouter/anthropic/claude-sonnet-4.5`` works. Without ``-m``: the
  ``PI_SDK_MODEL`` environment variable (or, for ``chat --continue``, the session's model).
* Base URL: ``--base-url URL`` for the ``-m`` model, else the ``<PROVIDER>_BASE_URL``
  environment variable (the provider id upper-cased, ``-`` as ``_``: ``ANTHROPIC_BASE_URL``,
  ``OPENAI_BASE_URL``, as the vendor SDKs name them) for any model, ``/model`` switches
  included. The URL replaces the catalog's ``baseUrl`` as is (OpenAI's ends in ``/v1``).
* ``--tools MODULE:ATTR`` (repeatable) imports ``MODULE`` (a dotted name, or a ``.py`` path) and
  offers ``ATTR`` to the model: an :class:`pi_sdk.AgentTool`, a list of them, or a plain typed
  function (made a tool with :func:`pi_sdk.tool`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from pi_sdk._agent.agent import Agent
from pi_sdk._agent.tools import tool
from pi_sdk._cli.broken_plugins import add_broken_plugins_option
from pi_sdk._cli.common import UsageError
from pi_sdk._cli.hints import unknown_provider
from pi_sdk._cli.waiting import WaitNotes
from pi_sdk._models.default import get_model, get_models
from pi_sdk._stream.retry_notice import describe_retry
from pi_sdk._wire.agent_types import AgentMessage, AgentThinkingLevel, AgentTool
from pi_sdk._wire.levels import MODEL_THINKING_LEVELS
from pi_sdk.options import RetryNotice, StreamOptions
from pi_sdk.types import Model

__all__ = [
    "TOOL_ABORT_GRACE_MS",
    "add_agent_options",
    "base_url_variable",
    "build_agent",
    "load_tools",
    "model_name",
    "model_spec",
    "resolve_model",
    "with_base_url",
]

TOOL_ABORT_GRACE_MS = 500
"""After Ctrl-C, how long a running tool may take to stop before it is cancelled (ms)."""


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """Add the options ``prompt`` and ``chat`` share (model, tools, ``--json``, ...)."""
    parser.add_argument(
        "-m", "--model", metavar="PROVIDER/ID", help="e.g. anthropic/claude-sonnet-4-5"
    )
    parser.add_argument(
        "-r", "--reasoning", choices=MODEL_THINKING_LEVELS, help="reasoning level (default: off)"
    )
    parser.add_argument("-s", "--system", default="", help="system prompt")
    parser.add_argument(
        "--tools", action="append", default=[], metavar="MODULE:ATTR",
        help="offer these tools to the model (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--base-url", metavar="URL", help="send the -m model's calls here (default: catalog)"
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON agent event per line (pi's wire shape)"
    )
    add_broken_plugins_option(parser)


def base_url_variable(provider: str) -> str:
    """The environment variable that overrides ``provider``'s base URL (``OPENAI_BASE_URL``)."""
    return re.sub(r"[^A-Z0-9]+", "_", provider.upper()) + "_BASE_URL"


def model_name(model: Model) -> str:
    """``provider/id``, as ``-m`` takes it."""
    return f"{model.provider}/{model.id}"


def model_spec(args: argparse.Namespace, default: str | None = None) -> str:
    """``-m``, else ``default`` (a continued session's model), else ``PI_SDK_MODEL``.

    Raises:
        UsageError: none of them is set.
    """
    spec = args.model or default or os.environ.get("PI_SDK_MODEL")
    if not spec:
        raise UsageError("no model: pass -m PROVIDER/ID (or set PI_SDK_MODEL)")
    return spec


def resolve_model(spec: str, base_url: str | None = None) -> Model:
    """The catalog model named ``PROVIDER/ID``, sending to the overriding base URL if any.

    Raises:
        UsageError: not ``PROVIDER/ID``, or no model of that provider is registered.
        ModelNotFoundError: the provider has no such model (close matches named).
    """
    provider, _, model_id = spec.partition("/")
    if not provider or not model_id:
        raise UsageError(f"a model is PROVIDER/ID, e.g. anthropic/claude-sonnet-4-5; got {spec!r}")
    if not get_models(provider):
        raise UsageError(unknown_provider(provider))
    return with_base_url(get_model(provider, model_id), base_url)


def with_base_url(model: Model, base_url: str | None = None) -> Model:
    """``model`` sending to ``base_url``, else to ``<PROVIDER>_BASE_URL`` when it is set.

    ``prompt``, ``chat`` and ``serve`` resolve every model through this; the URL replaces the
    catalog's ``baseUrl`` as is (a trailing ``/`` dropped).
    """
    url = base_url or os.environ.get(base_url_variable(model.provider))
    return model.model_copy(update={"base_url": url.rstrip("/")}) if url else model


def _import(module: str) -> ModuleType:
    if module.endswith(".py") or os.sep in module:
        path = Path(module)
        name = f"_pi_sdk_cli_tools_{path.stem}"  # never shadows an installed module
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise UsageError(f"--tools: no Python file at {module}")
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        spec.loader.exec_module(loaded)
        return loaded
    return importlib.import_module(module)


def _as_tool(value: Any, spec: str) -> AgentTool:
    if isinstance(value, AgentTool):
        return value
    if callable(value):
        try:
            return tool(cast("Callable[..., Any]", value))
        except (TypeError, ValueError) as exc:  # a signature no tool can have (*args, ...)
            raise UsageError(f"--tools {spec}: {exc}") from None
    raise UsageError(f"--tools {spec}: {type(value).__name__} is not a tool or a function")


def load_tools(specs: Sequence[str]) -> list[AgentTool]:
    """The tools named by ``--tools MODULE:ATTR`` options.

    Raises:
        UsageError: a malformed option, a module that fails to import, a missing attribute, a
            value that is not a tool, a function or a list of them, or two tools with one name.
    """
    tools: list[AgentTool] = []
    given: dict[str, str] = {}  # tool name -> the option that gave it
    for spec in specs:
        module_name, _, attribute = spec.rpartition(":")
        if not module_name or not attribute:
            raise UsageError(f"--tools takes MODULE:ATTR, e.g. my_tools:weather; got {spec!r}")
        try:
            module = _import(module_name)
        except UsageError:
            raise
        except Exception as exc:  # the user's module: any error is reported, in one line
            raise UsageError(f"--tools {spec}: cannot import {module_name}: {exc}") from None
        if not hasattr(module, attribute):
            raise UsageError(f"--tools {spec}: {module_name} has no attribute {attribute!r}")
        value = getattr(module, attribute)
        items: list[Any] = list(value) if isinstance(value, (list, tuple)) else [value]  # pyright: ignore[reportUnknownArgumentType]
        for item in items:
            new = _as_tool(item, spec)
            if new.name in given:
                raise UsageError(
                    f"--tools {spec}: a tool named {new.name!r} is already given (by"
                    f" --tools {given[new.name]}); tool names must be unique"
                )
            given[new.name] = spec
            tools.append(new)
    return tools


def build_agent(
    args: argparse.Namespace,
    model: Model,
    *,
    messages: Sequence[AgentMessage] = (),
    thinking_level: str | None = None,
    note: Callable[[str], object] | None = None,
) -> Agent:
    """The Agent of a ``prompt`` or ``chat`` run, from its options.

    ``note(line)`` is told of each retry (``"anthropic/claude-sonnet-4-5: attempt 1 of 3
    failed (429 ...); retrying in 1.2 s"``) and of an answer that has not started after 10 s
    (:class:`~pi_sdk._cli.waiting.WaitNotes`).
    """
    level = cast("AgentThinkingLevel", args.reasoning or thinking_level or "off")

    def name() -> str:
        current = agent.model
        return f"{current.provider}/{current.id}" if current is not None else "the model"

    def on_retry(notice: RetryNotice) -> None:
        if note is not None:
            note(f"{name()}: {describe_retry(notice)}")

    agent = Agent(
        model=model,
        stream_options=StreamOptions(on_retry=on_retry),
        system_prompt=args.system,
        thinking_level=level,
        tools=load_tools(args.tools),
        messages=messages,
        tool_abort_grace_ms=TOOL_ABORT_GRACE_MS,
    )
    if note is not None:
        agent.subscribe(WaitNotes(note, name))
    return agent
