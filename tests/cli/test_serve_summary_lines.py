"""The summary ``pi-sdk serve`` prints before it serves, every line in every case, whole.

:func:`pi_sdk._cli.serve_summary.summary` in process: the short-token warning (its bound), the
models named up to eight and the rest counted, a key found or not per provider, the limits
(singular and plural, fractional seconds, thousands), browsers, workers, bearer keys, usage
with and without a rate limit; :func:`served_models` sorted, each once, and the pattern that
matches nothing named with the close providers.
"""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk._cli import serve_summary
from pi_sdk._cli.common import UsageError
from pi_sdk._cli.serve_summary import Serving, served_models, summary
from pi_sdk._serve.limits import ServerLimits

HEAD = [
    "pi-sdk serve: listening on http://127.0.0.1:8787",
    "  protocols: pi's proxy (POST /api/stream) and pi-messages (POST /messages, model"
    " '<provider>/<id>')",
    "  auth: on, every call needs the bearer token from $PI_SDK_PROXY_TOKEN",
]
CLAUDE = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anthropic has a key, no other provider does."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")


def _serving(**fields: object) -> Serving:
    base: dict[str, object] = {
        "url": "http://127.0.0.1:8787",
        "token_source": "$PI_SDK_PROXY_TOKEN",
        "token_length": 64,
        "models": [CLAUDE],
        "limits": ServerLimits(header_timeout_s=10, idle_timeout_s=5, max_connections=64),
        "body_timeout_ms": 30_000,
        "max_body_bytes": 8_388_608,
        "cors_origins": (),
    }
    return Serving(**{**base, **fields})  # type: ignore[arg-type]


KEY_FOUND = "  keys: anthropic: found (its environment variable or a plugin)"
LIMITS = (
    "  limits: 64 connections; request head within 10 s, body within 30 s and 8,388,608 bytes;"
    " idle connections closed after 5 s"
)


def test_the_plain_summary():
    assert summary(_serving()) == [
        *HEAD,
        "  models: 1 model: anthropic/claude-sonnet-4-5",
        KEY_FOUND,
        LIMITS,
    ]


@pytest.mark.parametrize(
    ("length", "warning"),
    [
        (
            15,
            "  warning: the token is 15 characters long; use a long random one"
            " (openssl rand -hex 32)",
        ),
        (
            1,
            "  warning: the token is 1 character long; use a long random one"
            " (openssl rand -hex 32)",
        ),
        (16, None),
    ],
)
def test_a_short_token_is_warned_about(length: int, warning: str | None):
    lines = summary(_serving(token_length=length))
    assert lines[:-3] == [*HEAD, *([warning] if warning else [])]


def test_eight_models_are_named_and_the_rest_counted_each_provider_checked_for_a_key():
    anthropic = sorted(pi_sdk.get_models("anthropic"), key=lambda m: m.id)[:6]
    openai = sorted(pi_sdk.get_models("openai"), key=lambda m: m.id)[:5]
    models = [*anthropic, *openai]
    names = [f"{m.provider}/{m.id}" for m in models]
    assert summary(_serving(models=models))[3:6] == [
        f"  models: 11 models: {', '.join(names[:8])}, and 3 more",
        KEY_FOUND,
        "  warning: no API key for openai: its calls will fail until its key variable is set"
        " (the provider's page names it)",
    ]
    exactly = summary(_serving(models=models[:8]))[3]
    assert exactly == f"  models: 8 models: {', '.join(names[:8])}"


def test_limits_in_the_singular_and_with_fractions():
    limits = ServerLimits(header_timeout_s=2.5, idle_timeout_s=0.25, max_connections=1)
    lines = summary(_serving(limits=limits, body_timeout_ms=1_500, max_body_bytes=999))
    assert lines[-1] == (
        "  limits: 1 connection; request head within 2.5 s, body within 1.5 s and 999 bytes;"
        " idle connections closed after 0.25 s"
    )


def test_every_optional_line_in_order():
    lines = summary(
        _serving(
            cors_origins=("https://a.example", "https://b.example"),
            workers=4,
            keys=3,
            rate_limit="600 requests per 60 s",
            usage_db="/data/serve-usage.sqlite",
        )
    )
    assert lines[6:] == [
        "  browsers: pages of https://a.example, https://b.example may call it",
        "  workers: 4 processes on the one port (the connection limit holds in each)",
        "  keys: 3 bearer keys (the token and --keys-file)",
        "  usage: at most 600 requests per 60 s per key; counted per key in"
        " /data/serve-usage.sqlite",
    ]


def test_usage_without_a_rate_limit_and_one_worker_one_key():
    lines = summary(_serving(workers=1, keys=1, usage_db="/data/u.sqlite"))
    assert lines[6:] == ["  usage: no rate limit; counted per key in /data/u.sqlite"]


def test_served_models_are_sorted_and_each_named_once():
    served = served_models(["openai/gpt-5", "anthropic/claude-sonnet-4-5", "openai/gpt-5*"])
    names = [f"{m.provider}/{m.id}" for m in served]
    assert names == sorted(set(names)) and names[0] == "anthropic/claude-sonnet-4-5"
    assert "openai/gpt-5" in names and len(names) == len(set(names))


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        ("gogle/*", "; did you mean google/...?"),
        ("xyz-nothing/*", ""),
    ],
)
def test_a_pattern_that_matches_nothing_is_named(pattern: str, hint: str):
    with pytest.raises(UsageError) as raised:
        served_models(["anthropic/*", pattern])
    assert str(raised.value) == (
        f"--allow {pattern!r} matches no registered model{hint} (`pi-sdk models` lists them;"
        " --models FILE adds your own)"
    )


def test_at_most_three_close_providers_are_suggested(monkeypatch: pytest.MonkeyPatch):
    providers = ["alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta"]
    monkeypatch.setattr(serve_summary, "get_providers", lambda: providers)
    with pytest.raises(UsageError) as raised:
        served_models(["alpha-x/*"])
    assert str(raised.value) == (
        "--allow 'alpha-x/*' matches no registered model; did you mean alpha-4/... or"
        " alpha-3/... or alpha-2/...? (`pi-sdk models` lists them; --models FILE adds your own)"
    )


def test_a_summary_made_without_scale_options_is_one_worker_and_one_key():
    serving = _serving()
    assert (serving.workers, serving.keys, serving.rate_limit, serving.usage_db) == (
        1,
        1,
        None,
        None,
    )


@pytest.mark.parametrize(("count", "more"), [(9, ", and 1 more"), (20, ", and 12 more")])
def test_the_models_past_the_eighth_are_counted(count: int, more: str):
    first = sorted(pi_sdk.get_models("anthropic"), key=lambda m: m.id)[0]
    models = [first.model_copy(update={"id": f"m-{n:02d}"}) for n in range(count)]
    names = [f"anthropic/m-{n:02d}" for n in range(8)]
    line = summary(_serving(models=models))[3]
    assert line == f"  models: {count} models: {', '.join(names)}{more}"


@pytest.mark.parametrize(
    ("workers", "keys", "shown"),
    [
        (2, 1, ["  workers: 2 processes on the one port (the connection limit holds in each)"]),
        (1, 2, ["  keys: 2 bearer keys (the token and --keys-file)"]),
        (1, 1, []),
    ],
)
def test_two_workers_or_two_keys_are_the_first_counts_with_a_line(
    workers: int, keys: int, shown: list[str]
):
    assert summary(_serving(workers=workers, keys=keys))[6:] == shown
