"""Which proxy the environment names for a URL (pi_sdk._kit.env_proxy; issue 31, item 13).

The end-to-end tests through a loopback proxy are in tests/providers/test_env_proxy.py; these
pin the rules themselves: scheme variables, ``ALL_PROXY``, lower case, and ``NO_PROXY`` entries.
"""

from __future__ import annotations

import pytest
from _support.forward_proxy import clear_proxy_variables
from _support.strings import built

from pi_sdk._kit.env_proxy import EnvProxies


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_proxy_variables(monkeypatch)


def _read(monkeypatch: pytest.MonkeyPatch, **env: str) -> EnvProxies | None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return EnvProxies.read()


def test_no_variable_means_nothing_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _read(monkeypatch) is None
    assert _read(monkeypatch, NO_PROXY="example.com") is None  # NO_PROXY alone: no proxy
    assert _read(monkeypatch, HTTPS_PROXY="http://p:1", NO_PROXY="a.test, *") is None


def test_each_scheme_has_its_variable_and_all_proxy_fills_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxies = _read(monkeypatch, HTTPS_PROXY="proxy.corp:3128", ALL_PROXY="socks5://s:1080")
    assert proxies is not None
    assert proxies.proxy_for("https", "api.anthropic.com", None) == "http://proxy.corp:3128"
    assert proxies.proxy_for("http", "localhost", 8000) == "socks5://s:1080"
    assert proxies.proxy_for("ws", "x", None) is None


def test_lower_case_names_win(monkeypatch: pytest.MonkeyPatch) -> None:
    proxies = _read(monkeypatch, HTTPS_PROXY="http://upper:1", https_proxy="http://lower:2")
    assert proxies is not None
    assert proxies.proxy_for("https", "h", None) == "http://lower:2"


def test_http_proxy_is_ignored_in_a_cgi_script(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _read(monkeypatch, HTTP_PROXY="http://p:1", REQUEST_METHOD="POST") is None


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "direct"),
    [
        ("example.com", "example.com", None, True),
        ("example.com", "api.example.com", None, True),
        (".example.com", "api.example.com", None, True),
        ("*.example.com", "api.example.com", None, True),
        ("example.com", "myexample.com", None, False),
        ("EXAMPLE.com", "Api.Example.COM", None, True),
        ("example.com:8443", "example.com", 8443, True),
        ("example.com:8443", "example.com", None, False),  # https' default port is 443
        ("example.com:443", "example.com", None, True),
        ("10.0.0.0/8", "10.2.3.4", None, True),
        ("10.0.0.0/8", "11.2.3.4", None, False),
        ("10.1.2.3/8", "10.200.0.1", None, True),  # host bits set: still the /8 network
        ("10.0.0.0/8", "ten.example", None, False),
        ("127.0.0.1", "127.0.0.1", 9000, True),
        ("127.0.0.1:9000", "127.0.0.1", 9001, False),
        ("::1", "::1", None, True),
        ("[::1]:8080", "::1", 8080, True),
        ("[::1]:8080", "::1", 8081, False),
        ("fd00::/8", "fd12::1", None, True),
        (" , other.test ,", "example.com", None, False),
    ],
)
def test_no_proxy_entries(
    monkeypatch: pytest.MonkeyPatch, no_proxy: str, host: str, port: int | None, direct: bool
) -> None:
    proxies = _read(monkeypatch, HTTPS_PROXY="http://p:1", NO_PROXY=no_proxy)
    assert proxies is not None
    expected = None if direct else "http://p:1"
    assert proxies.proxy_for("https", host.lower(), port) == expected


def test_the_repr_shows_no_proxy_password(monkeypatch: pytest.MonkeyPatch) -> None:
    proxies = _read(monkeypatch, HTTPS_PROXY="http://me:s3cret-pass@p:1", NO_PROXY="x")
    assert "s3cret" not in repr(proxies) and "https" in repr(proxies)


@pytest.mark.parametrize(
    ("no_proxy", "scheme", "host", "port", "direct"),
    [
        # The host as the URL gives it: any case, maybe a trailing dot (the root zone).
        ("example.com", "https", "API.Example.com", None, True),
        ("example.com", "https", "api.example.com.", None, True),
        ("example.com.", "https", "example.com", None, True),
        # http's default port is 80.
        ("example.com:80", "http", "example.com", None, True),
        ("example.com:443", "http", "example.com", None, False),
        ("example.com:80", "https", "example.com", None, False),
        ("example.com:443", "https", "example.com", None, True),  # https's is 443
        # An entry naming no domain covers nothing (``*`` alone turns proxies off, at read).
        (".", "https", "example.com", None, False),
        ("*.", "https", "example.com", None, False),
        # A port that is not a number is part of the name: it matches no host.
        ("example.com:abc", "https", "example.com", None, False),
        ("[::1]", "https", "::1", 8080, True),
        ("[::1]:x", "https", "::1", 8080, True),  # no usable port: every port
    ],
)
def test_no_proxy_host_forms_and_default_ports(
    monkeypatch: pytest.MonkeyPatch,
    no_proxy: str,
    scheme: str,
    host: str,
    port: int | None,
    direct: bool,
) -> None:
    proxies = _read(
        monkeypatch, HTTPS_PROXY="http://p:1", HTTP_PROXY="http://p:1", NO_PROXY=no_proxy
    )
    assert proxies is not None
    # The scheme and host as a parsed URL hands them: equal to the literals, other objects.
    found = proxies.proxy_for(built(scheme), built(host), port)
    assert found == (None if direct else "http://p:1")


def test_a_scheme_without_its_variable_or_all_proxy_connects_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxies = _read(monkeypatch, HTTP_PROXY="http://p:1")
    assert proxies is not None
    assert proxies.proxy_for("http", "h", None) == "http://p:1"
    assert proxies.proxy_for("https", "h", None) is None


def test_the_repr_says_whether_no_proxy_entries_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    with_entries = _read(monkeypatch, HTTPS_PROXY="http://p:1", NO_PROXY="x")
    assert repr(with_entries) == "EnvProxies(schemes=['https'], no_proxy=True)"
    monkeypatch.delenv("NO_PROXY")
    assert repr(EnvProxies.read()) == "EnvProxies(schemes=['https'], no_proxy=False)"
