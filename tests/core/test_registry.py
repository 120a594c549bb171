import pytest
from _support.streams import idle_stream, other_idle_stream

from pi_sdk import (
    ConfigurationError,
    Model,
    ModelCost,
    ModelNotFoundError,
    Usage,
    get_api_provider,
    get_model,
    get_models,
    register_api_provider,
    register_model,
    unregister_api_providers,
)
from pi_sdk._wire.cost import calculate_cost
from pi_sdk.provider import ApiProvider


def test_second_provider_for_an_api_needs_replace():
    register_api_provider(
        ApiProvider(api="test-registry", stream=idle_stream), source_id="a", replace=True
    )
    with pytest.raises(ConfigurationError, match="replace=True"):
        register_api_provider(ApiProvider(api="test-registry", stream=other_idle_stream))
    register_api_provider(
        ApiProvider(api="test-registry", stream=other_idle_stream), replace=True, source_id="b"
    )
    assert get_api_provider("test-registry").stream is other_idle_stream
    unregister_api_providers("b")
    with pytest.raises(LookupError):
        get_api_provider("test-registry")


@pytest.mark.parametrize("again", [{}, {"replace": True}], ids=["plain", "replace"])
def test_registering_the_same_implementation_again_keeps_its_source(again: dict):
    provider = ApiProvider(api="test-registry-again", stream=idle_stream)
    register_api_provider(provider, source_id="plugin-a", replace=True)
    register_api_provider(ApiProvider(api="test-registry-again", stream=idle_stream), **again)
    with pytest.raises(ConfigurationError, match=r"\(by plugin-a\)"):
        register_api_provider(ApiProvider(api="test-registry-again", stream=other_idle_stream))
    unregister_api_providers("plugin-a")  # still plugin-a's: removed with it
    with pytest.raises(LookupError):
        get_api_provider("test-registry-again")


def test_the_same_implementation_given_a_new_source_takes_it():
    register_api_provider(
        ApiProvider(api="test-registry-moved", stream=idle_stream), source_id="old", replace=True
    )
    register_api_provider(
        ApiProvider(api="test-registry-moved", stream=idle_stream), source_id="new"
    )
    unregister_api_providers("old")
    assert get_api_provider("test-registry-moved").stream is idle_stream
    unregister_api_providers("new")
    with pytest.raises(LookupError):
        get_api_provider("test-registry-moved")


def test_custom_model_registration_and_lookup_with_suggestions():
    model = Model(
        id="my-proxy-model",
        api="openai-completions",
        provider="my-proxy",
        base_url="http://127.0.0.1:8080/v1",
    )
    register_model(model)
    assert get_model("my-proxy", "my-proxy-model") is model
    assert model in get_models("my-proxy")
    with pytest.raises(ModelNotFoundError, match="did you mean my-proxy/my-proxy-model"):
        get_model("my-proxy", "my-proxy-modle")
    with pytest.raises(ModelNotFoundError, match="no models registered"):
        get_model("nobody", "x")
    with pytest.raises(ConfigurationError):
        register_model(model, replace=False)


def test_calculate_cost_uses_usd_per_million_tokens():
    model = Model(
        id="m",
        api="a",
        provider="p",
        cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
    )
    usage = Usage(input=1_000_000, output=2_000, cache_read=10_000, cache_write=4_000)
    calculate_cost(model, usage)
    assert usage.cost.input == pytest.approx(3.0)
    assert usage.cost.output == pytest.approx(0.03)
    assert usage.cost.cache_read == pytest.approx(0.003)
    assert usage.cost.cache_write == pytest.approx(0.015)
    assert usage.cost.total == pytest.approx(3.048)


def test_registering_the_wrong_thing_fails_at_once_with_a_clear_message():
    with pytest.raises(TypeError, match="takes an ApiProvider, got Model"):
        register_api_provider(Model(id="m", api="a", provider="p"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes a Model, got ApiProvider"):
        register_model(ApiProvider(api="x", stream=idle_stream))  # type: ignore[arg-type]


async def _coroutine_stream(model, context, options):  # forgot to yield
    return None


def _sync_generator_stream(model, context, options):
    yield None


@pytest.mark.parametrize("bad", [_coroutine_stream, _sync_generator_stream])
def test_a_stream_function_that_is_not_an_async_generator_is_rejected(bad):
    with pytest.raises(TypeError, match="must be an async generator function"):
        register_api_provider(ApiProvider(api="test-bad-stream", stream=bad))


def test_an_unknown_model_suggests_at_most_three_close_ids():
    for n in range(1, 6):
        register_model(Model(id=f"close-model-{n}", api="test-registry", provider="suggesting"))
    with pytest.raises(ModelNotFoundError) as unknown:
        get_model("suggesting", "close-model-0")
    message = str(unknown.value)
    assert message.startswith("unknown model suggesting/close-model-0; did you mean ")
    suggested = message.removesuffix("?").split("did you mean ")[1].split(", ")
    assert len(suggested) == 3 and all(s.startswith("suggesting/close-model-") for s in suggested)
    with pytest.raises(ModelNotFoundError) as none_close:
        get_model("suggesting", "zzzz")
    assert str(none_close.value) == "unknown model suggesting/zzzz"
