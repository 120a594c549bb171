"""The docs' runnable examples, run the way a reader would: copied into an empty folder, run there.

Every code block with a ``title="<file name>"`` is a file the reader is told to create. These
tests write exactly those files (and nothing else: no conftest, no ini file, no path set up by
this repository) into a temporary folder and run them in a fresh interpreter, so an example that
only works inside this repository fails here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support.echo import echo_cassette
from _support.packages import install_into, run_ok

DOCS = Path(__file__).resolve().parents[2] / "docs"
_TITLED_BLOCK = re.compile(r'^```(\w+) title="([^"]+)"\n(.*?)^```$', re.M | re.S)


def titled_blocks(page: str) -> dict[str, str]:
    """Title -> code of every titled code block of ``docs/<page>``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return {title: body for _lang, title, body in _TITLED_BLOCK.findall(text)}


def write_files(files: dict[str, str], root: Path) -> None:
    for title, body in files.items():
        path = root / title
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


def clean_env() -> dict[str, str]:
    """The environment without anything this test run set up for Python or pytest."""
    drop = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PI_SDK_LOAD_PLUGINS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.endswith("_API_KEY")}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_script_example(page: str, script: str, root: Path) -> list[str]:
    """Write ``page``'s one titled block ``script`` into ``root``, run it; its output lines."""
    files = titled_blocks(page)
    assert set(files) == {script}
    write_files(files, root)
    result = run([script], root)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_the_session_example_runs_as_printed(tmp_path: Path) -> None:
    assert run_script_example("sessions.md", "session_example.py", tmp_path) == [
        "saved with scripted-1 - 2 messages",
        "About 2.1 million.",
    ]
    lines = (tmp_path / "chat.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == (
        '{"format":"pi-sdk-session","version":1,"count":2,"metadata":{"model":"scripted-1"}}'
    )
    assert len(lines) == 3


def test_the_otel_metrics_example_prints_the_genai_metrics(tmp_path: Path) -> None:
    """docs/plugins/otel.md: the console exporter shows every metric of one agent call."""
    output = "\n".join(run_script_example("plugins/otel.md", "otel_metrics_example.py", tmp_path))
    data = json.loads(output)
    found = {
        metric["name"]: metric["data"]["data_points"]
        for resource in data["resource_metrics"]
        for scope in resource["scope_metrics"]
        for metric in scope["metrics"]
    }
    assert sorted(found) == [
        "gen_ai.client.operation.duration",
        "gen_ai.client.operation.time_to_first_chunk",
        "gen_ai.client.token.usage",
        "pi_sdk.client.cost",
    ]
    tokens = {
        p["attributes"]["gen_ai.token.type"]: p["sum"] for p in found["gen_ai.client.token.usage"]
    }
    assert tokens == {"input": 12, "output": 3}
    assert sum(p["value"] for p in found["pi_sdk.client.cost"]) == pytest.approx(0.000081)


def test_the_compaction_example_runs_as_printed(tmp_path: Path) -> None:
    output = run_script_example("context.md", "compaction_example.py", tmp_path)
    compactions, summary, transcript = output
    count, largest = re.fullmatch(
        r"(\d+) compactions, largest request about (\d+) tokens", compactions
    ).groups()
    assert int(count) >= 3 and int(largest) <= 800
    assert summary.startswith("Earlier turns of this conversation were replaced by the summary")
    assert transcript == "80 messages in the transcript"


def test_the_hook_plugin_guide_test_passes_with_plain_pytest(tmp_path: Path) -> None:
    """The guide promises: the two files side by side, ``pytest``, no plugin, no configuration."""
    files = titled_blocks("plugins/writing-a-hook-plugin.md")
    assert set(files) == {"pi_sdk_trim.py", "test_trim.py", "pyproject.toml"}
    write_files(files, tmp_path)
    result = run(
        ["-m", "pytest", "-c", os.devnull, "--rootdir", str(tmp_path), "-p", "no:asyncio"],
        tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "warning" not in result.stdout


def install_printed_package(project: Path, site: Path) -> dict[str, str]:
    """``uv pip install`` the folder's ``pyproject.toml`` into ``site``; the env that sees it.

    The wheel is built from the printed files (hatchling, offline), as a reader's install builds it.
    """
    return install_into(project, site)


def plugin_row(env: dict[str, str], cwd: Path, name: str) -> list[str]:
    """The ``pi-sdk plugins`` row of the plugin ``name``, split into its columns."""
    cli = str(Path(sys.executable).with_name("pi-sdk"))
    listing = subprocess.run(
        [cli, "plugins"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert listing.returncode == 0, listing.stdout + listing.stderr
    [row] = [line.split() for line in listing.stdout.splitlines() if line.startswith(name + " ")]
    return row


def test_the_hook_plugin_guide_pyproject_builds_as_printed(tmp_path: Path) -> None:
    """The printed ``pyproject.toml`` builds beside the test file and installs the plugin."""
    project = tmp_path / "pi-sdk-trim"
    write_files(titled_blocks("plugins/writing-a-hook-plugin.md"), project)
    site = tmp_path / "site"
    env = install_printed_package(project, site)
    assert (site / "pi_sdk_trim.py").is_file()
    assert not (site / "test_trim.py").exists()  # only the module ships
    trim = plugin_row(env, tmp_path, "trim")
    assert trim[:3] == ["trim", "pi-sdk-trim", "0.1.0"]
    assert "before_tool_call" in " ".join(trim[3:])


ANSWER = "The capital of France is Paris."


def example_request_body() -> str:
    """The body the guide's example sends, as a recording stores it (replay matches bodies).

    Built by the Anthropic adapter itself from the example's model and prompt; the SDK adds
    ``"stream": true`` when it sends the payload.
    """
    from pi_sdk_anthropic.messages import build_request

    import pi_sdk

    model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Capital of France?")])
    payload = build_request(model, context, pi_sdk.StreamOptions())
    return json.dumps({**payload, "stream": True})


def anthropic_cassette() -> dict[str, Any]:
    """What ``--pi-record`` stores for the testing guide's example (Anthropic streaming format)."""
    events = [
        ("message_start", {"message": {"id": "msg_1", "model": "claude-sonnet-4-5",
                                       "role": "assistant", "content": [],
                                       "usage": {"input_tokens": 12, "output_tokens": 1}}}),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": ANSWER}}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 8}}),
        ("message_stop", {}),
    ]  # fmt: skip
    body = "".join(
        f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n" for name, data in events
    )
    return {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.anthropic.com/v1/messages",
                    "body": example_request_body(),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["text/event-stream; charset=utf-8"]},
                    "body": {"string": body},
                },
            }
        ],
    }


@pytest.mark.slow  # two pytest runs in a reader's project
def test_the_testing_guide_example_passes_with_its_documented_setup(tmp_path: Path) -> None:
    """``tests/test_weather.py`` + the documented ``pyproject.toml``, replayed from a cassette."""
    files = titled_blocks("testing.md")
    assert set(files) == {"pyproject.toml", "tests/test_weather.py"}
    write_files(files, tmp_path)
    cassette = tmp_path / "tests" / "cassettes" / "test_weather" / "test_weather_answer.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_text(yaml.safe_dump(anthropic_cassette()), encoding="utf-8")

    result = run(["-m", "pytest"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "warning" not in result.stdout

    # The guide's claim about the configuration it asks for.
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # stop the search here
    result = run(["-m", "pytest"], tmp_path)
    assert result.returncode != 0
    assert "async def functions are not natively supported" in result.stdout


@pytest.mark.slow  # builds and installs a package, then runs pytest
def test_the_provider_guide_package_installs_and_its_tests_pass(tmp_path: Path) -> None:
    """The provider guide's files, installed as a reader installs them, tested with pytest.

    ``uv pip install`` builds the wheel from the guide's ``pyproject.toml`` (hatchling, offline)
    into a folder of its own; with that folder on the path the installed entry point is what
    ``pi-sdk plugins`` lists and what ``pi-sdk replay`` plays a recorded call through.
    """
    project = tmp_path / "pi-sdk-echo"
    write_files(titled_blocks("plugins/writing-a-provider.md"), project)
    env = install_printed_package(project, tmp_path / "site")

    def run_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), cwd=folder, env=env, capture_output=True, text=True, timeout=120
        )

    pytest = (sys.executable, "-m", "pytest", "-c", os.devnull, "-p", "no:asyncio", "-v")
    tests = run_in(project, *pytest)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "11 passed" in tests.stdout and "warning" not in tests.stdout
    assert "TestEchoConformance::test_truncation_at_every_byte_ends_in_one_error PASSED" in (
        tests.stdout
    )

    cli = str(Path(sys.executable).with_name("pi-sdk"))
    echo = plugin_row(env, tmp_path, "echo")
    assert echo[:3] == ["echo", "pi-sdk-echo", "0.1.0"]
    assert echo[3:] == ["register_providers"]

    cassette = tmp_path / "echo.yaml"
    cassette.write_text(yaml.safe_dump(echo_cassette(["Hello", " from", " tape"])), "utf-8")
    replayed = run_in(tmp_path, cli, "replay", "--json", str(cassette))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    events = [json.loads(line) for line in replayed.stdout.splitlines()]
    assert [e["delta"] for e in events if e["type"] == "text_delta"] == ["Hello", " from", " tape"]
    assert events[-1]["type"] == "done" and events[-1]["message"]["api"] == "echo-messages"


# --- the printed examples as a reader's linters see them ----------------------------------------

PAGES_WITH_FILES = (
    "cli.md",
    "index.md",
    "sessions.md",
    "testing.md",
    "plugins/mcp.md",
    "plugins/otel.md",
    "plugins/writing-a-hook-plugin.md",
    "plugins/writing-a-provider.md",
)


def write_python_files(root: Path) -> list[Path]:
    """Each page's titled Python blocks in a folder of its own (one reader's project per page)."""
    folders: list[Path] = []
    for page in PAGES_WITH_FILES:
        files = {t: b for t, b in titled_blocks(page).items() if t.endswith(".py")}
        assert files, f"{page} has no titled Python block"
        folder = root / page.replace("/", "_").removesuffix(".md")
        write_files(files, folder)
        folders.append(folder)
    return folders


@pytest.mark.slow  # a whole pyright run over a reader's project
def test_the_printed_examples_type_check_in_a_readers_project(tmp_path: Path) -> None:
    """QA: ``agent.messages[-1].text`` and ``m.role`` in the examples were pyright errors.

    pyright in standard mode (what a reader's project runs), against this environment's
    pi-sdk, on every file the docs tell the reader to create and on docs/examples.
    """
    folders = write_python_files(tmp_path)
    examples = tmp_path / "examples"
    write_files({p.name: p.read_text("utf-8") for p in (DOCS / "examples").glob("*.py")}, examples)
    config = {
        "typeCheckingMode": "standard",
        "pythonVersion": "3.11",
        "executionEnvironments": [{"root": f.name} for f in [*folders, examples]],
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    result = run(["-m", "pyright", "--pythonpath", sys.executable, "--outputjson"], tmp_path)
    report = json.loads(result.stdout)
    problems = [
        f"{Path(d['file']).relative_to(tmp_path)}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert problems == []
    assert report["summary"]["filesAnalyzed"] >= 7


def test_the_printed_examples_pass_ruff_in_a_readers_project(tmp_path: Path) -> None:
    """QA: the provider guide's stream.py failed ruff I001 (import sorting) when copied out.

    ruff with the rules this repository uses, but nothing of its configuration (``--isolated``),
    run from the reader's project folder, so the reader's own package is first-party and
    ``pi_sdk`` is third-party.
    """
    for folder in write_python_files(tmp_path):
        args = ["check", "--isolated", "--no-cache", "--line-length", "100"]
        args += ["--select", "E,F,I,B,UP", "--target-version", "py311", "."]
        result = run(["-m", "ruff", *args], folder)
        assert result.returncode == 0, f"{folder.name}:\n{result.stdout}{result.stderr}"


def test_the_home_page_first_program_runs_as_printed(tmp_path: Path) -> None:
    """``docs/index.md``'s ``first.py``, run in a fresh interpreter, its HTTP served from a file.

    Only the transport is replayed (the demo cassette, matched on method, host and path; the
    prompt differs): the program, the catalog model, the Anthropic adapter and its SDK are real.
    """
    [script] = run_script_files("index.md", tmp_path)
    from pi_sdk._cli.replay import DEMO_CASSETTE as demo

    runner = (
        "import runpy, sys, vcr\n"
        f"with vcr.use_cassette({str(demo)!r}, record_mode='none',"
        " match_on=['method', 'host', 'path'], allow_playback_repeats=True):\n"
        f"    runpy.run_path({script.name!r}, run_name='__main__')\n"
    )
    env = {**clean_env(), "ANTHROPIC_API_KEY": "sk-ant-docs-test-not-a-key"}
    result = run_ok([sys.executable, "-c", runner], cwd=tmp_path, env=env)
    last = result.stdout.splitlines()[-1]
    assert re.fullmatch(r"\d+ tokens, \$\d+\.\d{6}", last), result.stdout
    assert "umbrella" in result.stdout.lower()  # the recorded text was streamed as deltas
    assert "error" not in result.stdout


def run_script_files(page: str, root: Path) -> list[Path]:
    """Write ``docs/<page>``'s titled blocks into ``root``; the paths written."""
    files = titled_blocks(page)
    write_files(files, root)
    return [root / title for title in files]


# --- docs/plugins/mcp.md: the reader's mcp.json, with the real MCP servers -----------------------


def mcp_reader_folder(root: Path, *files: str) -> dict[str, str]:
    """The page's titled ``files`` in ``root``, a git repository (the page says: run in one);
    the environment with the installed MCP servers on ``PATH``."""
    page_files = titled_blocks("plugins/mcp.md")
    assert set(page_files) == {"mcp.json", "mcp_example.py"}
    write_files({name: page_files[name] for name in files}, root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    bin_dir = str(Path(sys.executable).parent)
    return {**clean_env(), "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.slow  # two fresh interpreters that start MCP servers
def test_the_mcp_example_and_listing_run_as_printed(tmp_path: Path) -> None:
    env = mcp_reader_folder(tmp_path, "mcp.json", "mcp_example.py")
    page = (DOCS / "plugins" / "mcp.md").read_text(encoding="utf-8")
    example = subprocess.run([sys.executable, "mcp_example.py"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert example.returncode == 0, example.stdout + example.stderr
    printed = re.search(r'title="mcp_example.py".*?^```\n\n```text\n(.*?)^```', page, re.S | re.M)
    assert printed is not None and example.stdout == printed.group(1)

    cli = str(Path(sys.executable).with_name("pi-sdk"))
    listing = subprocess.run([cli, "mcp", "list", "mcp.json"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert listing.returncode == 0, listing.stdout + listing.stderr
    assert f"$ pi-sdk mcp list mcp.json\n{listing.stdout}```" in page


@pytest.mark.slow  # a chat that starts the page's MCP servers
def test_the_mcp_config_works_from_pi_sdk_chat(tmp_path: Path) -> None:
    """``pi-sdk chat --mcp mcp.json`` with the page's file: the model calls a server's tool."""
    from _support import warm_cli
    from _support.cli import ThreadedLoopback, vendor_env
    from _support.loopback import sse_step, text_reply
    from _support.wire import Call, Calls, Tokens, wire_for

    env = mcp_reader_folder(tmp_path, "mcp.json")
    api = "anthropic-messages"
    call = Calls((Call("toolu_1", "git_status", ('{"repo_path": "."}',)),))
    steps = [sse_step(sum(wire_for(api).events([call], Tokens()), [])), text_reply(api, "Clean.")]
    with ThreadedLoopback(steps) as server:
        env.update(ANTHROPIC_API_KEY="test-key", HOME=str(tmp_path), **vendor_env(api, server))
        args = ["chat", "--json", "-m", "anthropic/claude-sonnet-4-5", "--mcp", "mcp.json"]
        done = warm_cli.run_module("pi_sdk._cli", args, env, stdin="Is my work committed?\n",
                                   cwd=tmp_path, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "mcp: time · 2 tools (get_current_time, convert_time)" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [end] = [e for e in events if e["type"] == "tool_execution_end"]
    assert end["toolName"] == "git_status" and not end["isError"]
    assert end["result"]["content"][0]["text"].startswith("Repository status:")
    offered = {t["name"] for t in json.loads(server.bodies[0])["tools"]}
    assert {"get_current_time", "git_status", "git_reset"} <= offered
