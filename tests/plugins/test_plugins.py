"""The plugin manager: loading, restriction, failures, validation, order and hook combination."""

import sys
import textwrap
import types
import warnings
from pathlib import Path

import pluggy
import pytest

import pi_sdk
from pi_sdk import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentToolResult,
    AssistantMessage,
    BeforeToolCallContext,
    BeforeToolCallResult,
    ConfigurationError,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    UserMessage,
    agent_message_from_dict,
    get_api_providers,
    get_message_types,
    get_model,
    get_models,
    hookimpl,
)
from pi_sdk._agent.tool_calls import (
    BLOCKED_TEXT,
    run_after_tool_call_hooks,
    run_before_tool_call_hooks,
)
from pi_sdk._models.default import get_api_key
from pi_sdk.plugins import (
    LOAD_PLUGINS_ENV,
    PluginManager,
    describe_plugins,
    get_plugin_manager,
    hook_implementations,
    load_plugins,
    plugin_load_errors,
    set_plugin_manager,
    use_plugin_manager,
)
from pi_sdk.provider import ApiProvider, apply_payload_hooks, resolve_api_key

# --- fake installed distributions -----------------------------------------------------------


def _install(root: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]):
    """Write a dist-info with ``pi_sdk`` entry points and its modules under ``root``."""
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[pi_sdk]\n{lines}")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source))


GOOD = """
    import pi_sdk

    CALLS = []

    @pi_sdk.hookimpl
    def register_models(register):
        CALLS.append("register_models")
        register(pi_sdk.Model(id="fake-1", api="fake-api", provider="fake"))
"""
BROKEN = """
    raise ImportError("the fake vendor SDK is not installed")
"""
TYPO = """
    import pi_sdk

    @pi_sdk.hookimpl
    def register_model(register):
        pass
"""


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    """Installed fake plugin distributions: good, failing to import, with a hook-name typo."""
    for name, source in (("good", GOOD), ("broken", BROKEN), ("typo", TYPO)):
        module = f"pi_test_fake_{name}"
        _install(tmp_path, f"pi-sdk-fake-{name}", {name: module}, {module: source})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)
    yield tmp_path
    for name in ("pi_test_fake_good", "pi_test_fake_broken", "pi_test_fake_typo"):
        sys.modules.pop(name, None)


def _load_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        load_plugins()


def test_a_plugin_that_fails_to_import_is_reported_by_name_while_the_others_load(fake_site):
    with use_plugin_manager(load_entry_points=True):
        with pytest.warns(RuntimeWarning) as caught:
            model = get_model("fake", "fake-1")
        assert model.api == "fake-api"  # the good plugin loaded
        messages = [str(w.message) for w in caught]
        assert any("'broken'" in m and "fake vendor SDK is not installed" in m for m in messages)
        assert any("'typo'" in m and "did you mean 'register_models'" in m for m in messages)
        errors = {e.plugin: e for e in plugin_load_errors()}
        assert isinstance(errors["broken"].cause, ImportError)
        assert isinstance(errors["typo"].cause, pluggy.PluginValidationError)
        assert "good" not in errors
        listed = {info.name: info for info in describe_plugins()}
        assert listed["good"].hooks == ("register_models",)
        assert listed["good"].distribution == "pi-sdk-fake-good"
        assert listed["good"].version == "1.0"
        assert "fake vendor SDK" in (listed["broken"].error or "")
        assert listed["broken"].to_dict() == {
            "name": "broken",
            "distribution": "pi-sdk-fake-broken",
            "version": "1.0",
            "module": None,
            "hooks": [],
            "error": "ImportError: the fake vendor SDK is not installed",
        }
        assert not get_plugin_manager().has_plugin("typo")  # never half-registered


def test_loading_is_lazy_and_idempotent(fake_site):
    with use_plugin_manager(load_entry_points=True) as pm:
        assert "pi_test_fake_good" not in sys.modules  # nothing imported before first use
        _load_quietly()
        _load_quietly()
        pm.load_entry_points()
        get_models()
        get_models()
        module = sys.modules["pi_test_fake_good"]
        assert module.CALLS == ["register_models"]
        fake = {"good", "broken", "typo"}
        assert [e.plugin for e in pm.load_errors if e.plugin in fake] == ["broken", "typo"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("good", {"good"}),
        ("pi-sdk-fake-good", {"good"}),  # a distribution name works too
        (" PI_SDK_FAKE_GOOD , broken", {"good"}),  # normalized; broken tried and failed
        ("", set()),
    ],
)
def test_load_plugins_env_restricts_loading(fake_site, monkeypatch, value, expected):
    monkeypatch.setenv(LOAD_PLUGINS_ENV, value)
    with use_plugin_manager(load_entry_points=True) as pm:
        _load_quietly()
        assert {name for name, _ in pm.list_name_plugin()} == expected
        attempted = {e.plugin for e in pm.load_errors}
        assert attempted == ({"broken"} if "broken" in value else set())


def test_load_plugins_env_warns_about_names_that_match_nothing(fake_site, monkeypatch):
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "good,nope")
    with use_plugin_manager(load_entry_points=True) as pm:
        with pytest.warns(RuntimeWarning, match="names 'nope', which is not an installed plugin"):
            load_plugins()
        assert pm.has_plugin("good")


def test_blocked_plugins_are_skipped(fake_site):
    pm = PluginManager()
    pm.set_blocked("good")
    with use_plugin_manager(pm, load_entry_points=True):
        _load_quietly()
        assert pm.get_plugin("good") is None
        assert "pi_test_fake_good" not in sys.modules


@pytest.mark.parametrize("reason", ["blocked", "registered by hand"])
def test_a_skipped_plugin_does_not_stop_the_ones_after_it(fake_site, reason: str):
    """Entry points load in name order; skipping ``broken`` still loads ``good`` and ``typo``."""
    pm = PluginManager()
    if reason == "blocked":
        pm.set_blocked("broken")
    else:
        pm.register(object(), name="broken")
    with use_plugin_manager(pm, load_entry_points=True):
        _load_quietly()
        assert pm.has_plugin("good")
        assert get_model("fake", "fake-1").api == "fake-api"
        assert [e.plugin for e in pm.load_errors if e.plugin in {"broken", "typo"}] == ["typo"]


def test_fresh_manager_sees_only_directly_registered_plugins(plugin_manager):
    assert get_api_providers() == []
    assert get_models() == []

    async def stream(model, context, options):  # pragma: no cover - never iterated
        yield None

    class Plugin:
        @hookimpl
        def register_api_providers(self, register):
            register(ApiProvider(api="direct-api", stream=stream))

    plugin_manager.register(Plugin(), name="direct")
    assert [p.api for p in get_api_providers()] == ["direct-api"]


def test_leaving_a_fresh_manager_restores_the_previous_one():
    before = get_plugin_manager()
    with use_plugin_manager() as pm:
        assert get_plugin_manager() is pm
    assert get_plugin_manager() is before


def test_set_plugin_manager_adopts_a_plain_pluggy_manager():
    plain = pluggy.PluginManager("pi_sdk")

    class Keys:
        @hookimpl
        def get_api_key(self, provider):
            return "k-adopted" if provider == "adopted" else None

    plain.register(Keys(), name="keys")
    previous = set_plugin_manager(plain)
    try:
        assert get_api_key("adopted") == "k-adopted"
    finally:
        pi_sdk.plugins.restore_plugin_manager(previous)


# --- validation at registration --------------------------------------------------------------


def _plugin(**functions):
    module = types.ModuleType("pi_test_plugin")
    for name, function in functions.items():
        function.__name__ = name
        setattr(module, name, hookimpl(function))
    return module


def _register_model(register):  # a typo of register_models
    pass


def _get_api_key(*, provider):
    return None


async def _register_models(register):
    pass


@pytest.mark.parametrize(
    ("hook_name", "function", "message"),
    [
        ("register_model", _register_model, "did you mean 'register_models'"),
        ("get_api_key", _get_api_key, "keyword-only parameters"),
        ("register_models", _register_models, "must be a plain def"),
    ],
    ids=["unknown-name-with-suggestion", "keyword-only-parameters", "async-registration-hook"],
)
def test_invalid_hook_implementations_are_rejected(plugin_manager, hook_name, function, message):
    with pytest.raises(pluggy.PluginValidationError, match=message):
        plugin_manager.register(_plugin(**{hook_name: function}))


def test_optional_unknown_hooks_are_allowed(plugin_manager):
    def future_hook(x):
        pass

    module = types.ModuleType("pi_test_future")
    module.future_hook = hookimpl(optionalhook=True)(future_hook)
    plugin_manager.register(module, name="future")
    plugin_manager.check_pending()


def test_wrappers_are_rejected_on_awaited_hooks(plugin_manager):
    def before_tool_call(context):
        yield

    module = types.ModuleType("pi_test_wrapper")
    module.before_tool_call = hookimpl(wrapper=True)(before_tool_call)
    with pytest.raises(pluggy.PluginValidationError, match="does not support wrappers"):
        plugin_manager.register(module)


def test_arguments_not_in_the_spec_are_rejected(plugin_manager):
    def get_api_key(provider, model):
        return None

    with pytest.raises(pluggy.PluginValidationError, match="model"):
        plugin_manager.register(_plugin(get_api_key=get_api_key))


def test_every_installed_plugin_loads_and_every_hookimpl_has_a_spec(monkeypatch):
    monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)
    with use_plugin_manager(load_entry_points=True) as pm:
        _load_quietly()
        assert [str(e) for e in pm.load_errors] == []
        pm.check_pending()
        names = {name for name, _ in pm.list_name_plugin()}
        first_party = {
            "anthropic",
            "openai",
            "google",
            "tool-policy",
            "audit-log",
            "bash-records",
            "compaction",
        }
        assert first_party <= names
        hooks = {info.name: set(info.hooks) for info in describe_plugins()}
        for provider_package in ("anthropic", "openai", "google", "mistral", "bedrock", "azure"):
            assert hooks[provider_package] == {"register_providers"}, provider_package
        assert hooks["tool-policy"] == {"before_tool_call"}
        assert hooks["audit-log"] == {"after_tool_call"}
        assert hooks["bash-records"] == {"register_message_types"}
        assert hooks["compaction"] == {"register_message_types"}


def test_every_builtin_provider_arrives_through_a_plugin_hook(monkeypatch):
    """The core registers no vendor: each API provider and model comes from a plugin package.

    The one API of the core's own, ``pi-messages`` (pi's protocol, no vendor), arrives the same
    way: through pi-sdk-core's entry point.
    """
    monkeypatch.delenv(LOAD_PLUGINS_ENV, raising=False)
    with use_plugin_manager(load_entry_points=True) as pm:
        _load_quietly()
        packages = {
            api.implementation.__module__.split(".")[0]
            for _, plugin in pm.list_name_plugin()
            for provider in getattr(plugin, "providers", ())
            for api in provider.apis
        }
        providers = get_api_providers()
        assert {"anthropic-messages", "openai-responses", "google-generative-ai"} <= {
            p.api for p in providers
        }
        for provider in providers:
            package = provider.implementation.__module__.split(".")[0]
            assert package in packages, provider.api
            assert package != "pi_sdk" or provider.api == "pi-messages", provider.api
        assert {m.provider for m in get_models()} >= {"anthropic", "openai", "google"}
    with use_plugin_manager():  # the same core with no plugin knows no provider and no model
        assert get_api_providers() == [] and get_models() == []


# --- order and combination ------------------------------------------------------------------


def _named(name, **kwargs):
    class Plugin:
        pass

    plugin = Plugin()
    plugin.__name__ = name
    for hook, function in kwargs.items():
        setattr(plugin, hook, hookimpl(function))
    return plugin


def _keyed(answer, **marker):
    def get_api_key(provider):
        return answer

    function = hookimpl(**marker)(get_api_key)
    return types.SimpleNamespace(get_api_key=function)


def test_plugin_order_is_tryfirst_then_latest_registered_then_trylast(plugin_manager):
    plugin_manager.register(_keyed(None, trylast=True), name="last")
    plugin_manager.register(_keyed(None), name="early")
    plugin_manager.register(_keyed(None), name="late")
    plugin_manager.register(_keyed(None, tryfirst=True), name="first")
    order = [impl.plugin_name for impl in hook_implementations("get_api_key")]
    assert order == ["first", "late", "early", "last"]


def test_get_api_key_first_answer_in_plugin_order_wins_and_explicit_key_beats_plugins(
    plugin_manager,
):
    plugin_manager.register(_keyed("key-early"), name="early")
    plugin_manager.register(_keyed(None), name="silent")
    plugin_manager.register(_keyed("key-late"), name="late")
    model = Model(id="m", api="a", provider="p")
    assert resolve_api_key(model, StreamOptions()) == "key-late"
    assert resolve_api_key(model, StreamOptions(api_key="explicit")) == "explicit"


async def test_on_payload_hooks_chain_in_plugin_order_with_opt_in_arguments(plugin_manager):
    seen = []

    def only_payload(payload):  # declares a subset of the spec's arguments
        seen.append(("only_payload", dict(payload)))
        payload["steps"].append("only_payload")

    async def replaces(payload, model):  # async: awaited
        seen.append(("replaces", model.id))
        return {"steps": [*payload["steps"], "replaces"]}

    plugin_manager.register(types.SimpleNamespace(on_payload=hookimpl(replaces)), name="b")
    plugin_manager.register(types.SimpleNamespace(on_payload=hookimpl(only_payload)), name="a")

    def caller_hook(payload, model):
        return {"steps": [*payload["steps"], "options"]}

    model = Model(id="m", api="a", provider="p")
    result = await apply_payload_hooks({"steps": []}, model, StreamOptions(on_payload=caller_hook))
    assert result == {"steps": ["only_payload", "replaces", "options"]}
    assert [name for name, _ in seen] == ["only_payload", "replaces"]


async def test_an_on_payload_hook_returning_a_non_dict_is_a_clear_error(plugin_manager):
    def bad(payload):
        return "not a payload"

    plugin_manager.register(types.SimpleNamespace(on_payload=hookimpl(bad)), name="badhook")
    model = Model(id="m", api="a", provider="p")
    with pytest.raises(TypeError, match="on_payload of plugin 'badhook' returned str"):
        await apply_payload_hooks({"steps": []}, model, StreamOptions())
    with pytest.raises(TypeError, match="StreamOptions.on_payload returned list"):
        plugin_manager.unregister(name="badhook")
        await apply_payload_hooks({}, model, StreamOptions(on_payload=lambda p, m: [p]))


def _no_callables():
    return pi_sdk.AgentLoopConfig(model=Model(id="m", api="a", provider="p"))


async def _ask_before_plugins(context):
    """The plugins' combined answer, as the loop gets it with no Agent callable."""
    return await run_before_tool_call_hooks(context, _no_callables(), pi_sdk.AbortSignal())


async def _apply_after_plugins(context):
    return await run_after_tool_call_hooks(context, _no_callables(), pi_sdk.AbortSignal())


def _before_context(name="bash", args=None):
    call = ToolCall(id="call_1", name=name, arguments=args or {"command": "ls"})
    message = AssistantMessage(api="a", provider="p", model="m", content=[call])
    return BeforeToolCallContext(
        assistant_message=message, tool_call=call, args=call.arguments, context=AgentContext()
    )


def _after_context(text="out"):
    before = _before_context()
    return AfterToolCallContext(
        assistant_message=before.assistant_message,
        tool_call=before.tool_call,
        args=before.args,
        result=AgentToolResult(content=[TextContent(text=text)], details={"n": 1}),
        is_error=False,
        context=before.context,
    )


async def test_before_hooks_any_block_wins_with_its_reason_and_stops_the_rest(plugin_manager):
    asked = []

    def allow(context):
        asked.append("allow")

    async def block(context, signal):  # async, and takes the signal
        asked.append("block")
        return BeforeToolCallResult(block=True, reason="no shell today")

    def never(context):
        asked.append("never")

    plugin_manager.register(_named("never", before_tool_call=never), name="never")
    plugin_manager.register(_named("block", before_tool_call=block), name="block")
    plugin_manager.register(_named("allow", before_tool_call=allow), name="allow")
    answer = await _ask_before_plugins(_before_context())
    assert answer == BeforeToolCallResult(block=True, reason="no shell today")
    assert asked == ["allow", "block"]


async def test_before_hooks_fail_closed_naming_the_plugin(plugin_manager):
    def broken(context):
        raise RuntimeError("policy file unreadable")

    plugin_manager.register(_named("guard", before_tool_call=broken), name="guard")
    answer = await _ask_before_plugins(_before_context())
    assert answer is not None and answer.block
    assert "'guard'" in answer.reason and "policy file unreadable" in answer.reason

    plugin_manager.unregister(name="guard")
    plugin_manager.register(_named("odd", before_tool_call=lambda context: "yes"), name="odd")
    answer = await _ask_before_plugins(_before_context())
    assert answer is not None and answer.block and "'odd' returned str" in answer.reason


async def test_before_hooks_block_without_reason_uses_pi_mono_wording(plugin_manager):
    plugin_manager.register(
        _named("x", before_tool_call=lambda context: BeforeToolCallResult(block=True)), name="x"
    )
    answer = await _ask_before_plugins(_before_context())
    assert answer.reason == BLOCKED_TEXT == "Tool execution was blocked"


async def test_after_hooks_apply_in_plugin_order_each_seeing_the_previous(plugin_manager):
    seen = []

    def upper(context):
        seen.append(("upper", context.result.content[0].text, context.is_error))
        text = context.result.content[0].text
        return AfterToolCallResult(content=[TextContent(text=text.upper())])

    async def flag(context):
        seen.append(("flag", context.result.content[0].text, context.is_error))
        return AfterToolCallResult(is_error=True, details={"flagged": True})

    def observe(context):
        seen.append(("observe", context.result.content[0].text, context.is_error))

    plugin_manager.register(_named("observe", after_tool_call=observe), name="observe")
    plugin_manager.register(_named("flag", after_tool_call=flag), name="flag")
    plugin_manager.register(_named("upper", after_tool_call=upper), name="upper")
    context = _after_context("out")
    result, is_error = await _apply_after_plugins(context)
    assert seen == [("upper", "out", False), ("flag", "OUT", False), ("observe", "OUT", True)]
    assert result == AgentToolResult(content=[TextContent(text="OUT")], details={"flagged": True})
    assert is_error is True
    assert context.result.content[0].text == "out"  # the caller's context is not mutated


async def test_after_hooks_that_change_nothing_keep_the_result_and_errors_name_the_plugin(
    plugin_manager,
):
    plugin_manager.register(_named("quiet", after_tool_call=lambda context: None), name="quiet")
    context = _after_context()
    assert await _apply_after_plugins(context) == (context.result, False)

    def broken(context):
        raise ValueError("disk full")

    plugin_manager.register(_named("broken", after_tool_call=broken), name="broken")
    with pytest.raises(ValueError, match="disk full") as info:
        await _apply_after_plugins(_after_context())
    assert any("'broken'" in note for note in info.value.__notes__)

    plugin_manager.unregister(name="broken")
    plugin_manager.register(_named("odd", after_tool_call=lambda context: "yes"), name="odd")
    with pytest.raises(TypeError, match="after_tool_call of plugin 'odd' returned str"):
        await _apply_after_plugins(_after_context())


# --- custom message types ----------------------------------------------------------------------


def _note_plugin():
    from typing import Literal

    from pydantic import BaseModel

    class Note(BaseModel):
        role: Literal["pluginNote"] = "pluginNote"
        text: str

    def convert(note):
        return [UserMessage(content=f"[note] {note.text}")]

    class Plugin:
        @hookimpl
        def register_message_types(self, register):
            register(Note, convert)

    return Plugin(), Note


def test_message_types_follow_their_plugin_and_manager():
    plugin, note_type = _note_plugin()
    with use_plugin_manager() as pm:
        pm.register(plugin, name="notes")
        assert get_message_types()["pluginNote"] is note_type
        message = agent_message_from_dict({"role": "pluginNote", "text": "hi"})
        assert isinstance(message, note_type)
        pm.unregister(name="notes")
        assert "pluginNote" not in get_message_types()
        pm.register(plugin, name="notes")
    assert "pluginNote" not in get_message_types()  # gone with its manager
    with use_plugin_manager() as pm:
        pm.register(plugin, name="notes-again")  # re-registering the same type is fine
        assert get_message_types()["pluginNote"] is note_type


def test_a_hand_registration_keeps_its_role_when_the_plugins_change(plugin_manager):
    plugin, plugin_type = _note_plugin()
    _, hand_type = _note_plugin()  # another class for the plugin's role
    plugin_manager.register(plugin, name="notes")
    assert get_message_types()["pluginNote"] is plugin_type
    pi_sdk.register_message_type(
        hand_type, lambda n: [UserMessage(content=f"[hand] {n.text}")], replace=True
    )
    # The plugins are asked again (another plugin arrives; the type's plugin leaves and comes
    # back): the hand registration still wins its role, and no clash is reported.
    plugin_manager.register(types.SimpleNamespace(), name="unrelated")
    assert get_message_types()["pluginNote"] is hand_type
    plugin_manager.unregister(name="notes")
    plugin_manager.register(plugin, name="notes")
    assert get_message_types()["pluginNote"] is hand_type
    message = agent_message_from_dict({"role": "pluginNote", "text": "hi"})
    assert isinstance(message, hand_type)
    assert pi_sdk.default_convert_to_llm([message])[0].content == "[hand] hi"
    pi_sdk.unregister_message_type(hand_type)
    assert get_message_types()["pluginNote"] is plugin_type  # the plugin's type is back


def test_a_message_role_clash_between_plugins_is_a_clear_error_until_one_leaves(plugin_manager):
    first, first_type = _note_plugin()
    second, _ = _note_plugin()  # another class for the same role
    plugin_manager.register(first, name="first")
    plugin_manager.register(second, name="second")  # the manager knows no registry
    with pytest.raises(ConfigurationError, match="already registered.*by plugin:first"):
        get_message_types()
    with pytest.raises(ConfigurationError, match="already registered"):
        agent_message_from_dict({"role": "pluginNote", "text": "hi"})  # every read, not once
    plugin_manager.unregister(name="second")
    assert get_message_types()["pluginNote"] is first_type


# --- `pi-sdk plugins` ------------------------------------------------------------------------


def test_cli_lists_plugins_with_their_hooks_and_failures(fake_site, capsys):
    from pi_sdk._cli import main

    with use_plugin_manager(load_entry_points=True):
        assert main(["plugins"]) == 1  # a plugin failed to load
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["plugin", "distribution", "version", "hooks"]
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert rows["good"].split() == ["good", "pi-sdk-fake-good", "1.0", "register_models"]
    assert "failed to load: ImportError: the fake vendor SDK is not installed" in rows["broken"]
    assert "failed to load: PluginValidationError" in rows["typo"]
    assert rows["anthropic"].split()[1:] == ["pi-sdk-anthropic", "0.1.0", "register_providers"]
    assert lines[-1] == f"{len(rows)} plugins · 2 failed to load"
    assert "pi-sdk: warning: plugin 'broken' failed to load" in captured.err


def test_cli_plugins_json(fake_site, capsys):
    import json

    from pi_sdk._cli import main

    with use_plugin_manager(load_entry_points=True):
        assert main(["plugins", "--json"]) == 1  # a plugin failed to load
    records = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert records["good"] == {
        "name": "good",
        "distribution": "pi-sdk-fake-good",
        "version": "1.0",
        "module": "pi_test_fake_good",
        "hooks": ["register_models"],
        "error": None,
    }
    assert records["broken"]["hooks"] == [] and "ImportError" in records["broken"]["error"]


@pytest.mark.parametrize(
    ("value", "missing", "installed"),
    [
        ("good, Nope_X", ["Nope_X"], "good"),
        ("nope", ["nope"], "none"),
        ("zz,good,aa", ["aa", "zz"], "good"),
    ],
)
def test_names_that_match_no_plugin_are_listed_and_warned_with_what_is_installed(
    fake_site, monkeypatch, value, missing, installed
):
    monkeypatch.setenv(LOAD_PLUGINS_ENV, value)
    with use_plugin_manager(load_entry_points=True) as pm:
        with pytest.warns(RuntimeWarning) as caught:
            load_plugins()
        assert pm.missing == missing
        assert [str(w.message) for w in caught] == [
            f"{LOAD_PLUGINS_ENV} names {name!r}, which is not an installed plugin"
            f" (installed: {installed})"
            for name in missing
        ]


def test_a_plugin_registered_under_an_entry_point_name_is_left_as_it_is(fake_site, monkeypatch):
    monkeypatch.setenv(LOAD_PLUGINS_ENV, "good")
    mine = types.ModuleType("pi_test_mine")
    pm = PluginManager()
    pm.register(mine, name="good")
    with use_plugin_manager(pm, load_entry_points=True):
        load_plugins()
        assert pm.get_plugin("good") is mine
        assert "pi_test_fake_good" not in sys.modules and pm.distributions == {}
        assert pm.missing == [] and pm.load_errors == []


def test_a_provider_list_registered_as_a_plugin_unregisters_by_the_same_object(plugin_manager):
    providers = [pi_sdk.Provider(id="pi-test-listed", models=[])]
    generation = plugin_manager.generation
    plugin_manager.register(providers, name="listed")
    assert plugin_manager.has_plugin("listed")
    plugin_manager.unregister(providers)
    assert not plugin_manager.has_plugin("listed")
    assert plugin_manager.generation == generation + 2
    plugin_manager.register(providers, name="listed")  # the object is free to register again
    assert plugin_manager.has_plugin("listed")


@pytest.mark.parametrize(
    ("hook_name", "function", "message"),
    [
        (
            "register_model",
            _register_model,
            "plugin 'pi_test_plugin' implements unknown hook 'register_model';"
            " did you mean 'register_models'?",
        ),
        (
            "get_api_key",
            _get_api_key,
            "plugin 'pi_test_plugin' hook 'get_api_key': keyword-only parameters ['provider']"
            " are never passed by pluggy; declare them as plain parameters",
        ),
        (
            "register_models",
            _register_models,
            "plugin 'pi_test_plugin' hook 'register_models' must be a plain def, not async def",
        ),
        ("zzzzzz_qqqq", _register_model, "plugin 'pi_test_plugin' implements unknown hook"
         " 'zzzzzz_qqqq'"),
    ],
)  # fmt: skip
def test_a_rejected_hook_implementation_is_named_whole(
    plugin_manager, hook_name, function, message
):
    with pytest.raises(pluggy.PluginValidationError) as raised:
        plugin_manager.register(_plugin(**{hook_name: function}))
    assert str(raised.value) == message
