"""How providers arrive (issue 26, item 1): a package's ``Provider`` entry point, and the old hooks.

A third-party-style provider package is written, built into a wheel and installed the way a user
installs one (``uv pip install`` into a folder of its own); with that folder on the path, the
entry point that names its ``Provider`` is what puts its models, key and wire API in the default
collection. A provider written the old way, as ``register_api_providers`` /
``register_models`` / ``get_api_key`` hooks (what every first-party package was until issue 26),
keeps working unchanged.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest
from _support.loopback import LoopbackServer, text_reply
from _support.packages import install_into, run_ok

import pi_sdk
from pi_sdk import provider as kit
from pi_sdk.plugins import RegisterModel

ACME_PYPROJECT = """\
[project]
name = "pi-sdk-acme"
version = "0.3.0"
requires-python = ">=3.11"
dependencies = ["pi-sdk-core"]

[project.entry-points.pi_sdk]
acme = "pi_sdk_acme:PROVIDER"

[build-system]
requires = ["hatchling>=1.26"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["pi_sdk_acme"]
"""

ACME_MODULE = '''\
"""A third party's provider: its own wire API, one model, a key from ACME_API_KEY."""

import pi_sdk
from pi_sdk import provider as kit
from pi_sdk.plugins import RegisterModel


async def stream_acme(model, context, options):
    builder = kit.MessageBuilder(model)
    yield builder.start()
    said = "key ok" if options.api_key == "acme-secret" else f"wrong key {options.api_key!r}"
    for event in builder.text(0, said):
        yield event
    for event in builder.done("stop"):
        yield event


PROVIDER = kit.Provider(
    id="acme",
    name="Acme AI",
    auth=kit.ProviderAuth(env=("ACME_API_KEY",)),
    models=[pi_sdk.Model(id="acme-1", api="acme-chat", provider="acme", context_window=8000)],
    apis=(kit.ApiProvider(api="acme-chat", stream=stream_acme),),
)
'''

ACME_SCRIPT = """\
import pi_sdk

model = pi_sdk.get_model("acme", "acme-1")
reply = pi_sdk.complete_sync(model, pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]))
auth = pi_sdk.default_models().check_auth("acme")
print(model.context_window, reply.stop_reason, reply.text, auth.source)
"""


def test_a_third_party_provider_package_arrives_through_its_provider_entry_point(
    tmp_path: Path,
):
    project = tmp_path / "pi-sdk-acme"
    (project / "pi_sdk_acme").mkdir(parents=True)
    (project / "pyproject.toml").write_text(ACME_PYPROJECT)
    (project / "pi_sdk_acme" / "__init__.py").write_text(ACME_MODULE)
    env = {**install_into(project, tmp_path / "site"), "ACME_API_KEY": "acme-secret"}
    (tmp_path / "use_acme.py").write_text(ACME_SCRIPT)
    run = run_ok([sys.executable, "use_acme.py"], cwd=tmp_path, env=env)
    assert run.stdout.split() == ["8000", "stop", "key", "ok", "env:ACME_API_KEY"]
    cli = str(Path(sys.executable).with_name("pi-sdk"))
    listing = subprocess.run(
        [cli, "plugins"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    [row] = [line.split() for line in listing.stdout.splitlines() if line.startswith("acme ")]
    assert row == ["acme", "pi-sdk-acme", "0.3.0", "register_providers"]


def test_an_entry_point_naming_something_that_is_not_a_provider_is_reported_by_name(
    plugin_manager: pi_sdk.plugins.PluginManager,
):
    with pytest.raises(TypeError, match="entry point 'mixed' names a sequence"):
        plugin_manager.register([kit.Provider(id="a"), "not a provider"], name="mixed")


def _old_style_anthropic() -> types.ModuleType:
    """A module with the hooks pi-sdk-anthropic's ``__init__`` held before issue 26 (its wire
    function now a call plan)."""
    module = types.ModuleType("pi_sdk_anthropic_before_issue_26")
    module.register_api_providers = kit.api_providers_hook(  # type: ignore[attr-defined]
        kit.lazy_api(
            "anthropic-messages", "pi_sdk_anthropic.messages", call="call_anthropic_messages"
        )
    )
    module.register_models = kit.models_hook("pi_sdk_anthropic")  # type: ignore[attr-defined]
    module.get_api_key = kit.env_api_key_hook(  # type: ignore[attr-defined]
        {"anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")}
    )
    return module


async def test_a_provider_written_as_the_old_hooks_still_works(
    plugin_manager: pi_sdk.plugins.PluginManager, monkeypatch: pytest.MonkeyPatch
):
    with pytest.warns(DeprecationWarning, match="publish a Provider"):
        old = _old_style_anthropic()  # the kit's hook factories: still there, with a warning
    plugin_manager.register(old, name="old-anthropic")
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-old-style")
    model = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    assert pi_sdk.default_models().check_auth("anthropic").source == "plugin"
    assert pi_sdk.get_api_provider("anthropic-messages").api == "anthropic-messages"
    async with LoopbackServer([text_reply("anthropic-messages", "still here")]) as server:
        reply = await pi_sdk.complete(
            model.model_copy(update={"base_url": server.url}),
            pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]),
            pi_sdk.StreamOptions(max_retries=0),
        )
    assert (reply.stop_reason, reply.text) == ("stop", "still here")
    sent = server.headers[0]
    assert "sk-ant-old-style" in (sent.get("x-api-key"), sent.get("authorization", "")[7:])
    plugin_manager.unregister(name="old-anthropic")
    with pytest.raises(pi_sdk.ModelNotFoundError):
        pi_sdk.get_model("anthropic", "claude-sonnet-4-5")


def test_a_provider_object_and_the_old_hooks_for_one_id_serve_together(
    plugin_manager: pi_sdk.plugins.PluginManager, monkeypatch: pytest.MonkeyPatch
):
    """A model registered by an old hook for a provider that now is an object joins it."""
    monkeypatch.setenv("ACME_API_KEY", "from-object-env")

    class OldModels:
        @kit.hookimpl
        def register_models(self, register: RegisterModel) -> None:
            register(pi_sdk.Model(id="legacy", api="acme-chat", provider="acme"))

    plugin_manager.register(OldModels(), name="old-models")
    plugin_manager.register(
        kit.Provider(id="acme", auth=kit.ProviderAuth(env=("ACME_API_KEY",))), name="acme"
    )
    assert [m.id for m in pi_sdk.get_models("acme")] == ["legacy"]
    assert pi_sdk.default_models().check_auth("acme").source == "env:ACME_API_KEY"


def test_the_first_party_table_names_the_packages_that_register_each_provider():
    """The hint for a missing package (``pip install pi-sdk-anthropic``) follows the packages."""
    import importlib

    from pi_sdk._wire.first_party import FIRST_PARTY_PROVIDERS

    registered: dict[str, set[str]] = {}
    for distribution in ("anthropic", "azure", "bedrock", "google", "mistral", "openai"):
        module = importlib.import_module(f"pi_sdk_{distribution}")
        for provider in module.PROVIDERS:
            registered.setdefault(provider.id, set()).add(f"pi-sdk-{distribution}")
    assert {p: tuple(sorted(d)) for p, d in registered.items()} == FIRST_PARTY_PROVIDERS
