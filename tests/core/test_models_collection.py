"""Models collections (issue 26, item 1): providers as objects, several collections per process.

Two collections hold different providers and keys and stream at the same time against real
sockets; neither sees the other's key, and the default collection (the installed plugins) is
untouched. Providers merge by id, settings two of them disagree on are refused, the provider's
base URL and headers reach its models, keys come from the documented sources in order, and a
call to a model whose API nobody implements fails before any I/O.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pi_sdk_anthropic
import pi_sdk_openai
import pytest
from _support.loopback import LoopbackServer, text_reply
from _support.strings import built

import pi_sdk
from pi_sdk.provider import ApiProvider, MessageBuilder, Provider, ProviderAuth

CONTEXT = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")])


async def test_two_collections_with_their_own_providers_and_keys_stream_at_once(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with (
        LoopbackServer([text_reply("anthropic-messages", "from anthropic")]) as first,
        LoopbackServer([text_reply("openai-completions", "from openai")]) as second,
    ):
        work = pi_sdk.Models([pi_sdk_anthropic.provider(api_key="key-work", base_url=first.url)])
        home = pi_sdk.Models(
            [pi_sdk_openai.provider("groq", api_key="key-home", base_url=second.url)]
        )
        claude = work.get_model("anthropic", "claude-sonnet-4-5")
        llama = home.models("groq")[0].model_copy(update={"api": "openai-completions"})
        assert claude.base_url == first.url and llama.base_url == second.url
        a, b = await asyncio.gather(
            work.complete(claude, CONTEXT, pi_sdk.StreamOptions(max_retries=0)),
            home.complete(llama, CONTEXT, pi_sdk.StreamOptions(max_retries=0)),
        )
        assert (a.stop_reason, b.stop_reason) == ("stop", "stop"), (
            a.error_message,
            b.error_message,
        )
        assert (a.text, b.text) == ("from anthropic", "from openai")
        sent = first.headers[0]
        assert "key-work" in (
            sent.get("x-api-key"),
            sent.get("authorization", "").removeprefix("Bearer "),
        )
        assert second.headers[0]["authorization"] == "Bearer key-home"
        assert "key-home" not in repr(first.headers) and "key-work" not in repr(second.headers)
        # each collection knows only its own providers, and the default one neither key
        with pytest.raises(pi_sdk.ModelNotFoundError):
            work.get_model("groq", llama.id)
        assert "groq" not in {p.id for p in work.providers()}
        assert pi_sdk.default_models().get_api_key("anthropic") is None
        assert pi_sdk.get_model("anthropic", "claude-sonnet-4-5").base_url != first.url


def test_a_provider_configured_twice_serves_two_collections_without_sharing():
    base = pi_sdk_anthropic.provider()
    a = pi_sdk.Models([base.configure(api_key="a", base_url="https://a.test")])
    b = pi_sdk.Models([base.configure(api_key="b", base_url="https://b.test")])
    assert (a.get_api_key("anthropic"), b.get_api_key("anthropic")) == ("a", "b")
    model_a = a.get_model("anthropic", "claude-sonnet-4-5")
    model_b = b.get_model("anthropic", "claude-sonnet-4-5")
    assert (model_a.base_url, model_b.base_url) == ("https://a.test", "https://b.test")
    assert base.auth.api_key is None  # the package's provider itself is unchanged
    a.register_model(pi_sdk.Model(id="only-a", api="anthropic-messages", provider="anthropic"))
    with pytest.raises(pi_sdk.ModelNotFoundError):
        b.get_model("anthropic", "only-a")


@pytest.mark.parametrize("empty", [None, {}])
@pytest.mark.parametrize("set_first", [True, False])
def test_a_setting_one_provider_leaves_unset_or_empty_comes_from_the_other(
    empty: dict[str, str] | None, set_first: bool
):
    """Merging providers of one id: ``None`` and ``{}`` are unset, in either order."""
    oauth = {"client_id": "gw-app"}
    given = [
        Provider(id="gw", base_url="https://gw.test", auth=ProviderAuth(oauth=oauth)),
        Provider(id="gw", base_url=None, auth=ProviderAuth(oauth=empty)),
    ]
    merged = pi_sdk.Models(given if set_first else given[::-1]).provider("gw")
    assert merged.auth.oauth == oauth and merged.base_url == "https://gw.test"


def test_providers_sharing_an_id_merge_their_catalogs_and_apis_and_refuse_a_conflict():
    one = pi_sdk.Model(id="one", api="x-api", provider="gw")
    two = pi_sdk.Model(id="two", api="y-api", provider="gw")
    x = ApiProvider(api="x-api", stream=_never)
    y = ApiProvider(api="y-api", stream=_never)
    models = pi_sdk.Models(
        [
            Provider(id="gw", models=[one], apis=(x,), auth=ProviderAuth(env=("GW_A",))),
            Provider(id="gw", models=[two], apis=(y,), auth=ProviderAuth(env=("GW_B", "GW_A"))),
        ]
    )
    assert [m.id for m in models.models("gw")] == ["one", "two"]
    assert models.api_provider("y-api", "gw") is y
    assert models.provider("gw").auth.env == ("GW_A", "GW_B")
    with pytest.raises(
        pi_sdk.ConfigurationError, match="'gw' is given twice with a different base URL"
    ):
        pi_sdk.Models(
            [
                Provider(id="gw", base_url="https://1.test"),
                Provider(id="gw", base_url="https://2.test"),
            ]
        )
    with pytest.raises(pi_sdk.ConfigurationError, match="explicit API key"):
        pi_sdk.Models(
            [
                Provider(id="gw", auth=ProviderAuth(api_key="k1")),
                Provider(id="gw", auth=ProviderAuth(api_key="k2")),
            ]
        )
    replaced = pi_sdk.Models([Provider(id="gw", models=[one])])
    replaced.add(Provider(id="gw", models=[two]), replace=True)
    assert [m.id for m in replaced.models("gw")] == ["two"]


def test_keys_come_from_the_explicit_key_then_the_callback_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("ACME_KEY", "from-env")
    calls: list[str] = []

    def vault() -> str | None:
        calls.append("asked")
        return "from-vault" if len(calls) > 1 else None

    acme = Provider(id="acme", auth=ProviderAuth(env=("ACME_UNSET", "ACME_KEY"), get_api_key=vault))
    models = pi_sdk.Models([acme])
    assert models.check_auth("acme") == pi_sdk.AuthCheck("acme", True, "env:ACME_KEY")
    assert models.get_api_key("acme") == "from-vault"
    assert models.check_auth("acme").source == "callback"
    explicit = pi_sdk.Models([acme.configure(api_key="explicit")])
    assert explicit.check_auth("acme") == pi_sdk.AuthCheck("acme", True, "explicit")
    monkeypatch.delenv("ACME_KEY")
    nothing = pi_sdk.Models([Provider(id="acme", auth=ProviderAuth(env=("ACME_KEY",)))])
    assert nothing.check_auth("acme") == pi_sdk.AuthCheck("acme", False, None)
    assert nothing.check_auth("unknown").available is False
    assert "explicit" not in repr(explicit.provider("acme")) and "api_key=<set>" in repr(
        explicit.provider("acme").auth
    )


async def test_the_collection_hands_its_key_to_the_provider_and_redacts_it_from_errors():
    seen: list[str | None] = []

    async def failing(model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions):
        seen.append(options.api_key)
        builder = MessageBuilder(model)
        yield builder.start()
        raise RuntimeError(f"upstream said: bad key {options.api_key}")

    acme = Provider(
        id="acme",
        auth=ProviderAuth(api_key="sk-acme-secret-1234"),
        models=[pi_sdk.Model(id="m", api="acme-api", provider="acme")],
        apis=(ApiProvider(api="acme-api", stream=failing),),
    )
    models = pi_sdk.Models([acme])
    message = await models.complete(models.get_model("acme", "m"), CONTEXT)
    assert seen == ["sk-acme-secret-1234"]
    assert message.stop_reason == "error"
    assert "sk-acme-secret-1234" not in (message.error_message or "")
    override = await models.complete(
        models.get_model("acme", "m"), CONTEXT, pi_sdk.StreamOptions(api_key="per-call")
    )
    assert seen[-1] == "per-call" and override.stop_reason == "error"


def test_a_model_whose_api_nobody_implements_fails_before_any_io():
    models = pi_sdk.Models(
        [Provider(id="p", models=[pi_sdk.Model(id="m", api="nope", provider="p")])]
    )
    with pytest.raises(
        pi_sdk.ProviderNotFoundError, match="No API provider registered for api: nope"
    ):
        models.stream(models.get_model("p", "m"), CONTEXT)


# An implementation's api may be read from settings (equal to the models' api, not the same).
@pytest.mark.parametrize("make", [str, built], ids=["literal", "built"])
def test_an_exclusive_implementation_serves_only_its_own_provider(make: Any):
    own = ApiProvider(api=make("shared-api"), stream=_never, exclusive=True)
    common = ApiProvider(api="shared-api", stream=_never)
    models = pi_sdk.Models(
        [Provider(id="azure-like", apis=(own,)), Provider(id="openai-like", apis=(common,))]
    )
    assert models.api_provider("shared-api", "azure-like") is own
    assert models.api_provider("shared-api", "openai-like") is common
    assert models.api_provider("shared-api", "someone-else") is common
    alone = pi_sdk.Models([Provider(id="azure-like", apis=(own,))])
    with pytest.raises(pi_sdk.ProviderNotFoundError):
        alone.api_provider("shared-api", "someone-else")


def test_a_provider_s_headers_go_under_each_model_s_own():
    model = pi_sdk.Model(id="m", api="a", provider="p", headers={"x-model": "1", "x-both": "model"})
    models = pi_sdk.Models(
        [Provider(id="p", models=[model], headers={"x-provider": "2", "x-both": "provider"})]
    )
    assert models.get_model("p", "m").headers == {
        "x-provider": "2",
        "x-both": "model",
        "x-model": "1",
    }
    assert model.headers == {"x-model": "1", "x-both": "model"}  # the catalog's object unchanged


def test_a_catalog_entry_of_another_provider_is_refused_with_its_name():
    stray = pi_sdk.Model(id="m", api="a", provider="other")
    with pytest.raises(ValueError, match=r"holds other/m, whose provider is not 'p'"):
        pi_sdk.Models([Provider(id="p", models=[stray])]).models()


def test_the_package_providers_are_the_entry_point_objects_and_know_their_env():
    ids = {p.id for p in pi_sdk_openai.PROVIDERS}
    assert {"openai", "openrouter", "groq"} <= ids
    assert pi_sdk_openai.provider("groq").auth.env == ("GROQ_API_KEY",)
    with pytest.raises(pi_sdk.ProviderNotFoundError, match="no provider 'nope' here"):
        pi_sdk_openai.provider("nope")
    assert os.environ.get("PI_SDK_NEVER_SET") is None


async def _never(model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions):
    raise AssertionError("not called")
    yield
