"""``ProxyPolicy``'s rules by class: key names, distinct tokens, the bearer scheme, limits' edges.

Each table walks every case of one rule of :mod:`pi_sdk._serve.policy` at its edges (a key name
of 64 characters is allowed, 65 is not; a ``max_body_bytes`` of 1 is allowed, 0 is not).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_sdk._serve.policy import DEFAULT_KEY, ProxyPolicy

TOKEN = "main-token-77e1"


def _policy(**changes: Any) -> ProxyPolicy:
    settings: dict[str, Any] = {"token": TOKEN, "allow": ("acme/*",)}
    settings.update(changes)
    return ProxyPolicy(**settings)


@pytest.mark.parametrize(
    "name",
    ["a", "A", "9", "app.a", "app_a", "app-a", "x" * 64, "Team-1.prod_2"],
    ids=["one-letter", "upper", "digit", "dot", "underscore", "dash", "64-chars", "mixed"],
)
def test_a_key_name_of_1_to_64_letters_digits_dots_underscores_dashes_is_allowed(name: str):
    policy = _policy(keys={name: "key-token-1"})
    assert policy.key_name("Bearer key-token-1") == name


@pytest.mark.parametrize(
    "name",
    ["", "x" * 65, "a b", "a/b", "a:b", "é", "a\n", DEFAULT_KEY],
    ids=["empty", "65-chars", "space", "slash", "colon", "non-ascii", "newline", "default"],
)
def test_any_other_key_name_is_refused_naming_the_rule(name: str):
    read = json.loads(json.dumps({name: "key-token-1"}))  # as a keys file gives the names
    with pytest.raises(ValueError) as caught:
        _policy(keys=read)
    assert str(caught.value) == (
        f"key name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-' (not 'default',"
        " the main token's)"
    )


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"a": TOKEN}, "key 'a' has the token of another key: give each its own"),
        ({"a": "t-1", "b": "t-1"}, "key 'b' has the token of another key: give each its own"),
        (
            {"a": "t-1", "b": "t-2", "c": "t-1"},
            "key 'c' has the token of another key: give each its own",
        ),
        ({"a": "t-1", "b": ""}, "key 'b' has an empty token"),
    ],
    ids=["the-main-token", "two-keys", "first-and-third", "second-empty"],
)
def test_every_key_needs_a_token_of_its_own(keys: dict[str, str], message: str):
    with pytest.raises(ValueError) as caught:
        _policy(keys=keys)
    assert str(caught.value) == message


def test_every_named_key_is_checked_and_the_keys_are_a_copy():
    given = {"a": "t-1", "b": "t-2", "c": "t-3"}
    policy = _policy(keys=given)
    given["d"] = "t-4"  # the caller's mapping changing later changes nothing
    assert [policy.key_name(f"Bearer t-{n}") for n in (1, 2, 3, 4)] == ["a", "b", "c", None]
    assert policy.key_name(f"Bearer {TOKEN}") == DEFAULT_KEY


@pytest.mark.parametrize(
    ("header", "key"),
    [
        (f"Bearer {TOKEN}", DEFAULT_KEY),
        (f"BEARER {TOKEN}", DEFAULT_KEY),  # the scheme is case-insensitive
        (f"Bearer   {TOKEN}  ", DEFAULT_KEY),  # spaces around the token are dropped
        ("Bearer t-1", "a"),
        (f"Basic {TOKEN}", None),  # another scheme
        (f"Token {TOKEN}", None),
        (TOKEN, None),  # no scheme
        (f"{TOKEN} Bearer", None),
        ("Bearer ", None),  # an empty token never matches
        ("Bearer", None),
        ("", None),
        (None, None),
        (f"Bearer {TOKEN.upper()}", None),  # tokens are compared exactly
        (f"Bearer {TOKEN[:-1]}", None),
        ("Bearer t-1x", None),
    ],
)
def test_only_a_bearer_header_with_a_known_token_names_a_key(header: str | None, key: str | None):
    policy = _policy(keys={"a": "t-1"})
    assert policy.key_name(header) == key
    assert policy.authorized(header) is (key is not None)


@pytest.mark.parametrize(
    ("allow", "provider", "model_id", "allowed"),
    [
        (("acme/*",), "acme", "m-1", True),
        (("acme/*",), "Acme", "m-1", False),  # glob matching is case-sensitive
        (("acme/m-1",), "acme", "m-10", False),  # a plain pattern is the whole name
        (("acme/m-?",), "acme", "m-1", True),
        (("beta/*", "acme/m-*"), "acme", "m-2", True),  # any pattern may match
        (("beta/*", "acme/m-*"), "beta", "x", True),
        (("beta/*", "acme/m-*"), "gamma", "m-2", False),
        (("*/*",), "any", "model", True),
    ],
)
def test_a_model_is_allowed_when_any_pattern_matches_its_whole_name(
    allow: tuple[str, ...], provider: str, model_id: str, allowed: bool
):
    assert _policy(allow=allow).allows(provider, model_id) is allowed


@pytest.mark.parametrize(
    "changes",
    [
        {"max_body_bytes": 1},
        {"keepalive_ms": None},
        {"keepalive_ms": 0.5},
        {"body_timeout_ms": 0.5},
        {"allow": ("/",)},
    ],
    ids=["one-byte-body", "no-keepalive", "short-keepalive", "short-body-timeout", "bare-slash"],
)
def test_the_smallest_settings_each_rule_allows(changes: dict[str, Any]):
    policy = _policy(**changes)
    for name, value in changes.items():
        assert getattr(policy, name) == value


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"keepalive_ms": 0}, "keepalive_ms must be positive or None, got 0"),
        ({"keepalive_ms": -1}, "keepalive_ms must be positive or None, got -1"),
        ({"max_body_bytes": -1}, "max_body_bytes must be at least 1, got -1"),
        ({"body_timeout_ms": float("nan")}, "body_timeout_ms must be positive, got nan"),
    ],
)
def test_settings_below_each_rule_are_refused(changes: dict[str, Any], message: str):
    with pytest.raises(ValueError) as caught:
        _policy(**changes)
    assert str(caught.value) == message


def test_the_model_comes_from_resolve_model_when_given():
    calls: list[tuple[str, str]] = []
    sentinel = object()

    def resolve(provider: str, model_id: str) -> Any:
        calls.append((provider, model_id))
        return sentinel

    assert _policy(resolve_model=resolve).model("acme", "m-1") is sentinel
    assert calls == [("acme", "m-1")]


def test_a_policy_is_keyword_only_and_frozen() -> None:
    import dataclasses

    with pytest.raises(TypeError):
        ProxyPolicy(TOKEN, allow=("acme/*",))  # type: ignore[misc]
    policy = _policy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.token = "another"  # type: ignore[misc]
    assert policy == _policy()


def test_a_policy_s_documented_defaults() -> None:
    """8 MiB bodies arriving within 30 s, a keep-alive comment after 15 s of quiet, no CORS
    origins, no other keys, the registry's models."""
    policy = ProxyPolicy(token=TOKEN, allow=("acme/*",))
    assert (
        policy.max_body_bytes,
        policy.body_timeout_ms,
        policy.keepalive_ms,
        policy.cors_origins,
        dict(policy.keys),
        policy.resolve_model,
    ) == (8_388_608, 30_000, 15_000, (), {}, None)
