"""First use imports only what the names a program touches need (issue 32, item 2).

``import pi_sdk`` then ``pi_sdk.Agent``, ``pi_sdk.stream``, ``pi_sdk.UserMessage`` (the runner's
first-use step, ``benchmarks/_import_time.py``) must leave the agent loop, the registries, the
plugin manager (pluggy), the stream machinery and asyncio to the first call; the first call
then imports them and behaves as before. Each check runs in a fresh interpreter, so modules
other tests imported cannot hide a regression.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pi_sdk
from pi_sdk._agent.messages import default_convert_to_llm

FIRST_USE = "import pi_sdk; pi_sdk.Agent; pi_sdk.stream; pi_sdk.UserMessage"

DEFERRED = (
    "asyncio",
    "pluggy",
    "importlib.metadata",
    "logging",
    "pi_sdk._agent.loop",
    "pi_sdk._agent.tool_calls",
    "pi_sdk._models.default",
    "pi_sdk._models.collection",
    "pi_sdk._plugins.manager",
    "pi_sdk._stream.builder",
    "pi_sdk._stream.event_stream",
    "pi_sdk._stream.provider_errors",
    "pi_sdk._stream.read_loop",
    "pi_sdk._stream.wire_decoder",
    "pi_sdk._wire.agent_types",
    "pi_sdk.events",
    "pi_sdk_openai._client",
    "pi_sdk_openai._listing_http",
    "pi_sdk_openai._listing_shapes",
    "signal",
)
"""Imported by the first call (a run, a stream, a registry read), not by first use."""

DEFERRED_TO_THE_FIRST_AGENT = (
    "pi_sdk.options",
    "pi_sdk._wire.output",
    "pi_sdk._wire.output_cap",
    "pi_sdk._wire.estimate",
    "pi_sdk._wire.pi_messages",
)
"""Imported by the first ``Agent(...)`` (the options), the first call or ``output=`` (the typed
answer, the token estimate) or the first pi-coding-agent message (its types), not by the names."""


def _loaded_after(code: str, names: tuple[str, ...] = DEFERRED) -> dict[str, object]:
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps({{m: m in sys.modules for m in {names!r}}}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_first_use_leaves_the_call_machinery_unimported() -> None:
    loaded = _loaded_after(FIRST_USE)
    assert [name for name, present in loaded.items() if present] == []


def test_first_use_leaves_the_options_and_pi_message_types_to_the_first_agent() -> None:
    loaded = _loaded_after(FIRST_USE, DEFERRED_TO_THE_FIRST_AGENT)
    assert [name for name, present in loaded.items() if present] == []


def test_the_first_agent_and_discovery_import_the_options_alone() -> None:
    code = f"{FIRST_USE}\nagent = pi_sdk.Agent(system_prompt='Be brief.')"
    for then in ("", "\nimport pi_sdk.plugins\npi_sdk.plugins.get_plugin_manager()"):
        loaded = _loaded_after(code + then, DEFERRED_TO_THE_FIRST_AGENT)
        assert [name for name, present in loaded.items() if present] == ["pi_sdk.options"]


def test_the_typed_answer_loads_with_the_first_output_and_reads_as_before() -> None:
    code = (
        f"{FIRST_USE}\n"
        "from pi_sdk.options import StreamOptions\n"
        "agent = pi_sdk.Agent(output={'type': 'object'})\n"
        "from pi_sdk.options import Output, StructuredOutput, parse_output\n"
        "from pi_sdk._wire import output\n"
        "assert isinstance(agent.stream_options.output, Output), agent.stream_options\n"
        "assert (Output, StructuredOutput, parse_output) == (\n"
        "    output.Output, output.StructuredOutput, output.parse_output)\n"
        "names = set(dir(pi_sdk.options)) & set(pi_sdk.options.__all__)\n"
        "assert {'Output', 'OutputMode', 'StructuredOutput', 'parse_output'} <= names\n"
    )
    assert _loaded_after(code, DEFERRED_TO_THE_FIRST_AGENT)["pi_sdk._wire.output"] is True


def test_a_pi_message_read_and_converted_after_first_use_loads_its_types() -> None:
    code = (
        f"{FIRST_USE}\n"
        "from pi_sdk._agent.messages import agent_message_from_dict, default_convert_to_llm\n"
        "note = agent_message_from_dict({'role': 'branchSummary', 'summary': 's', 'fromId': 'x'})\n"
        "assert type(note).__name__ == 'PiBranchSummary', note\n"
        "[user] = default_convert_to_llm([note])\n"
        "assert user.role == 'user' and 'summary' in user.text, user\n"
    )
    assert _loaded_after(code, DEFERRED_TO_THE_FIRST_AGENT)["pi_sdk._wire.pi_messages"] is True


def test_an_agent_built_at_first_use_still_imports_nothing_of_a_run() -> None:
    # Building the Agent (its state, options and default converter) is part of first use too.
    loaded = _loaded_after(f"{FIRST_USE}\nagent = pi_sdk.Agent(system_prompt='Be brief.')")
    assert [name for name, present in loaded.items() if present] == []


def test_the_first_run_and_the_first_stream_import_what_they_need_and_work() -> None:
    code = (
        f"{FIRST_USE}\n"
        "from pi_sdk.testing import ScriptedProvider\n"
        "provider = ScriptedProvider(['Hello.', 'Again.'])\n"
        "agent = pi_sdk.Agent(model=provider.model)\n"
        "new = agent.prompt_sync('hi')\n"
        "assert new[-1].text == 'Hello.', new\n"
        "context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content='hi')])\n"
        "assert pi_sdk.complete_sync(provider.model, context).text == 'Again.'\n"
    )
    loaded = _loaded_after(code)
    for name in ("asyncio", "pi_sdk._agent.loop", "pi_sdk._models.default", "pi_sdk.events"):
        assert loaded[name] is True, name


def test_the_agent_signature_is_unchanged() -> None:
    # What a user can see of the deferred imports: the Agent's defaults are the same objects.
    parameters = inspect.signature(pi_sdk.Agent).parameters
    assert parameters["convert_to_llm"].default is default_convert_to_llm
    assert parameters["tool_execution"].default == "parallel"
    assert pi_sdk.Agent.__module__ == "pi_sdk._agent.agent"
    assert pi_sdk.AgentState.__module__ == "pi_sdk._agent.state"


def test_plugin_discovery_leaves_the_call_machinery_to_the_first_call() -> None:
    # Discovery imports every installed provider and plugin; what they need for a call or a run
    # (asyncio, the registries, the stream machinery and the events a provider's call reads
    # into, an OpenAI client, a server's model listing, logging, OpenTelemetry, TOML) waits
    # for it.
    loaded = _loaded_after(
        f"{FIRST_USE}\nimport pi_sdk.plugins\npi_sdk.plugins.get_plugin_manager()\n"
        "import sys\n"
        "assert 'pi_sdk_otel' in sys.modules and 'pi_sdk_openai' in sys.modules\n"
        "assert 'pi_sdk_compaction' in sys.modules and 'pi_sdk_bash_records' in sys.modules\n"
        "assert not {'opentelemetry', 'tomllib'} & set(sys.modules), sorted(sys.modules)\n"
    )
    late = ("pi_sdk._plugins.manager", "pluggy")  # discovery itself
    assert [name for name, present in loaded.items() if present and name not in late] == []


def test_after_discovery_a_provider_call_and_a_model_listing_import_what_they_need() -> None:
    # What discovery leaves out comes in with the first call of each kind, and the call works.
    code = (
        f"{FIRST_USE}\nimport pi_sdk.plugins\npi_sdk.plugins.get_plugin_manager()\n"
        "import asyncio, pi_sdk_openai\n"
        "from pi_sdk import Context, StreamOptions, UserMessage\n"
        "model = pi_sdk.get_model('openai', 'gpt-4o-mini')\n"
        "local = model.model_copy(update={'base_url': 'http://127.0.0.1:9/v1'})\n"
        "context = Context(messages=[UserMessage(content='hi')])\n"
        "reply = pi_sdk.complete_sync(local, context, StreamOptions(api_key='k', max_retries=0))\n"
        "assert reply.stop_reason == 'error', reply\n"
        "lister = pi_sdk_openai.ModelLister()\n"
        "from pi_sdk.provider import FetchContext\n"
        "server = pi_sdk_openai.openai_compatible_provider('nobody', '')\n"
        "try:\n"
        "    asyncio.run(lister(FetchContext(provider=server, api_key=None)))\n"
        "except Exception as exc:\n"
        "    assert type(exc).__name__ == 'ListingError' and 'no base URL' in str(exc), exc\n"
        "else:\n"
        "    raise AssertionError('listing without a base URL did not fail')\n"
    )
    loaded = _loaded_after(code)
    for name in ("pi_sdk.events", "pi_sdk._stream.builder", "pi_sdk_openai._client"):
        assert loaded[name] is True, name
    assert loaded["pi_sdk_openai._listing_http"] is True
