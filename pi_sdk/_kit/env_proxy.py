"""The proxy the environment names for a URL (``HTTP[S]_PROXY``, ``ALL_PROXY``, ``NO_PROXY``).

An HTTP client given a transport of its own (every first-party provider gives its client a
:class:`~pi_sdk.provider.PooledTransport`) no longer reads proxies from the environment:
httpx2 only does so for the transport it builds itself. The pooled transport asks this module
instead, so a provider honours the variables every vendor SDK, curl and pi-mono honour
(earendil-works/pi#942):

* ``HTTPS_PROXY`` for ``https://`` URLs, ``HTTP_PROXY`` for ``http://`` URLs, ``ALL_PROXY`` for
  both when the scheme's own variable is unset; lower-case names too (``https_proxy``, ...),
  which win over the upper-case ones (Python's :func:`urllib.request.getproxies`, which also
  reads the macOS and Windows system settings); ``HTTP_PROXY`` is ignored inside a CGI script
  (``REQUEST_METHOD`` set, the "httpoxy" rule);
* a proxy without a scheme is ``http://``; ``http://``, ``https://``, ``socks5://`` and
  ``socks5h://`` proxies are supported (SOCKS needs the ``socksio`` package: ``pip install
  socksio``; without it a call fails with httpx2's error naming it); ``user:password@`` in the
  proxy URL is sent as ``Proxy-Authorization``;
* ``NO_PROXY`` (comma-separated, curl's rules): ``*`` turns proxies off; a host name matches
  itself and its subdomains (``example.com``, ``.example.com`` and ``*.example.com`` all cover
  ``api.example.com``, none covers ``myexample.com``); an IP address matches itself, a CIDR
  block (``10.0.0.0/8``, ``fd00::/8``) the addresses in it; ``host:port`` (``[::1]:8080``)
  matches that port only.

The variables are read once, when a transport is built (as httpx2 reads them when a client is
built); a process that changes them later gets them on its next client.
"""

from __future__ import annotations

import ipaddress
from urllib.request import getproxies

__all__ = ["EnvProxies"]


class EnvProxies:
    """The environment's proxy settings, and the proxy each URL goes through.

    Build with :meth:`read`; ``None`` there means no proxy is configured (nothing to decide
    per request).
    """

    __slots__ = ("_by_scheme", "_no_proxy")

    def __init__(self, by_scheme: dict[str, str], no_proxy: str) -> None:
        self._by_scheme = by_scheme
        self._no_proxy = [_Bypass.parse(entry) for entry in no_proxy.split(",") if entry.strip()]

    @classmethod
    def read(cls) -> EnvProxies | None:
        """The settings of the environment now; ``None`` when no proxy variable is set."""
        found = getproxies()
        by_scheme: dict[str, str] = {}
        for scheme in ("http", "https"):
            url = found.get(scheme) or found.get("all")
            if url:
                by_scheme[scheme] = url if "://" in url else f"http://{url}"
        if not by_scheme:
            return None
        no_proxy = found.get("no", "")
        if any(entry.strip() == "*" for entry in no_proxy.split(",")):
            return None
        return cls(by_scheme, no_proxy)

    def proxy_for(self, scheme: str, host: str, port: int | None) -> str | None:
        """The proxy URL for a request to ``scheme://host:port``; ``None``: connect directly.

        Args:
            scheme: ``"http"`` or ``"https"`` (other schemes never go through a proxy).
            host: The host name or IP address (IPv6 without brackets).
            port: The port, or ``None`` for the scheme's default.
        """
        url = self._by_scheme.get(scheme)
        if url is None:
            return None
        if self._no_proxy:
            host = host.lower().rstrip(".")
            port = port if port is not None else (443 if scheme == "https" else 80)
            if any(entry.covers(host, port) for entry in self._no_proxy):
                return None
        return url

    def __repr__(self) -> str:
        # Proxy URLs may carry a password: show the schemes only.
        return f"EnvProxies(schemes={sorted(self._by_scheme)}, no_proxy={bool(self._no_proxy)})"


class _Bypass:
    """One ``NO_PROXY`` entry: a domain (and its subdomains) or an IP network, maybe a port."""

    __slots__ = ("domain", "network", "port")

    def __init__(
        self,
        domain: str,
        network: ipaddress.IPv4Network | ipaddress.IPv6Network | None,
        port: int | None,
    ) -> None:
        self.domain = domain
        self.network = network
        self.port = port

    @classmethod
    def parse(cls, entry: str) -> _Bypass:
        text = entry.strip().lower()
        port: int | None = None
        if text.startswith("["):  # [v6] or [v6]:port
            address, _, rest = text[1:].partition("]")
            text = address
            if rest.startswith(":") and rest[1:].isdigit():
                port = int(rest[1:])
        elif text.count(":") == 1:  # name:port or v4:port (a bare v6 has several colons)
            name, _, number = text.partition(":")
            if number.isdigit():
                text, port = name, int(number)
        try:
            network = ipaddress.ip_network(text, strict=False)
        except ValueError:
            network = None
        domain = text.removeprefix("*").removeprefix(".").rstrip(".")
        return cls(domain, network, port)

    def covers(self, host: str, port: int) -> bool:
        """Whether a request to ``host`` (lower case) on ``port`` skips the proxy."""
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            try:
                return ipaddress.ip_address(host) in self.network
            except ValueError:
                return False
        return bool(self.domain) and (host == self.domain or host.endswith("." + self.domain))
