"""The plugin guides' code runs as printed: extracted from the Markdown, registered, exercised.

The hook guide's own test file is run by ``test_docs_examples.py``, in an empty folder with plain
pytest, the way a reader runs it.
"""

import re
import sys
import tomllib
from pathlib import Path

import pytest

from pi_sdk import (
    Agent,
    Context,
    ToolResultMessage,
    UserMessage,
    complete,
    get_model,
    hookimpl,
    stream,
    tool,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins"
_BLOCK = re.compile(r'^```(\w+) title="([^"]+)"\n(.*?)^```$', re.M | re.S)


def extract(page: str, root: Path) -> dict[str, Path]:
    """Write every titled code block of ``page`` under ``root``; return title -> path."""
    written = {}
    for _lang, title, body in _BLOCK.findall((DOCS / page).read_text(encoding="utf-8")):
        path = root / title
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        written[title] = path
    return written


@pytest.fixture
def echo(tmp_path, monkeypatch, plugin_manager):
    """The guide's pi-sdk-echo package, importable from a temp dir (nothing installed)."""
    files = extract("writing-a-provider.md", tmp_path)
    assert set(files) == {"pyproject.toml", "pi_sdk_echo/__init__.py", "pi_sdk_echo/stream.py"}
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("ECHO_API_KEY", "not-a-real-key")
    import pi_sdk_echo

    plugin_manager.register(pi_sdk_echo, name="echo")  # what the entry point does
    yield pi_sdk_echo, files
    for name in [m for m in sys.modules if m == "pi_sdk_echo" or m.startswith("pi_sdk_echo.")]:
        del sys.modules[name]


def test_the_guide_package_declares_its_entry_point(echo):
    _, files = echo
    project = tomllib.loads(files["pyproject.toml"].read_text())
    assert project["project"]["entry-points"]["pi_sdk"] == {"echo": "pi_sdk_echo"}
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["pi_sdk_echo"]


async def test_the_guide_provider_streams_text_through_the_same_hook(echo):
    assert "pi_sdk_echo.stream" not in sys.modules  # registration imports nothing heavy
    model = get_model("echo", "echo-1")
    events = [
        e async for e in stream(model, Context(messages=[UserMessage(content="hi there you")]))
    ]
    assert "pi_sdk_echo.stream" in sys.modules

    assert [e.type for e in events] == ["start", "text_start"] + ["text_delta"] * 3 + [
        "text_end",
        "done",
    ]
    assert "".join(e.delta for e in events if e.type == "text_delta") == "hi there you"
    message = events[-1].message
    assert message.text == "hi there you" and message.stop_reason == "stop"
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (3, 3, 6)
    assert message.usage.cost.total == pytest.approx((3 * 0.1 + 3 * 0.2) / 1e6)


async def test_the_guide_provider_streams_tool_calls_and_honours_max_tokens(echo):
    model = get_model("echo", "echo-1")
    context = Context(
        messages=[UserMessage(content='/tool read {"path": "a.py", "lines": [1, 2]}')]
    )
    events = [e async for e in stream(model, context)]
    deltas = [e.delta for e in events if e.type == "toolcall_delta"]
    assert len(deltas) > 1 and "".join(deltas) == '{"path": "a.py", "lines": [1, 2]}'
    call = events[-2].tool_call
    assert (call.name, call.arguments) == ("read", {"path": "a.py", "lines": [1, 2]})
    assert events[-1].message.stop_reason == "toolUse"

    from pi_sdk import StreamOptions

    short = await complete(
        model, Context(messages=[UserMessage(content="a b c d")]), StreamOptions(max_tokens=2)
    )
    assert (short.text, short.stop_reason) == ("a b", "length")


async def test_the_guide_provider_reports_a_missing_key_as_an_error_event(echo, monkeypatch):
    monkeypatch.delenv("ECHO_API_KEY")
    message = await complete(get_model("echo", "echo-1"), Context(messages=[]))
    assert message.stop_reason == "error"
    assert message.error_message == "no API key for provider 'echo': set ECHO_API_KEY"


async def test_the_guide_provider_runs_on_payload_hooks(echo, plugin_manager):
    class Tagger:
        @hookimpl
        def on_payload(self, payload):
            payload["messages"][-1]["text"] += " (tagged)"

    plugin_manager.register(Tagger(), name="tagger")
    message = await complete(
        get_model("echo", "echo-1"), Context(messages=[UserMessage(content="x")])
    )
    assert message.text == "x (tagged)"


async def test_the_guide_provider_drives_an_agent_tool_round_trip(echo):
    @tool
    def read(path: str) -> str:
        """Read a file.

        Args:
            path: Which file.
        """
        return f"contents of {path}"

    agent = Agent(model=get_model("echo", "echo-1"), tools=[read])
    await agent.prompt('/tool read {"path": "a.py"}')
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.content[0].text == "contents of a.py"
    assert agent.messages[-1].text == "read said: contents of a.py"


@pytest.fixture
def trim_guide(tmp_path, monkeypatch):
    """The guide's pi_sdk_trim module (its test file runs in test_docs_examples.py)."""
    files = extract("writing-a-hook-plugin.md", tmp_path)
    assert set(files) == {"pi_sdk_trim.py", "test_trim.py"}
    monkeypatch.syspath_prepend(str(tmp_path))
    import pi_sdk_trim

    yield pi_sdk_trim
    sys.modules.pop("pi_sdk_trim", None)


async def test_the_hook_plugin_guide_plugin_leaves_short_output_alone(trim_guide, plugin_manager):
    plugin_manager.register(trim_guide, name="trim")

    @tool
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: What to echo.
        """
        return text

    from pi_sdk.testing import ScriptedProvider, ScriptedReply

    provider = ScriptedProvider([ScriptedReply.tool_call("echo", {"text": "short"}), "ok"])
    agent = Agent(model=provider.model, tools=[echo])
    await agent.prompt("go")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.content[0].text == "short" and not result.is_error
