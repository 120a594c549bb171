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
* ``NO_PROXY`` (comma-separated): ``*`` turns proxies off; a host name matches itself and its
  subdomains (``example.com`` and ``.example.com`` both cover ``api.example.com``); ``host:port``
  matches that port only (:func:`urllib.request.proxy_bypass_environment`).

The variables are read once, when a transport is built (as httpx2 reads them when a client is
built); a process that changes them later gets them on its next client.
"""

from __future__ import annotations

from urllib.request import getproxies, proxy_bypass_environment

__all__ = ["EnvProxies"]


class EnvProxies:
    """The environment's proxy settings, and the proxy each URL goes through.

    Build with :meth:`read`; ``None`` there means no proxy is configured (nothing to decide
    per request).
    """

    __slots__ = ("_by_scheme", "_no_proxy")

    def __init__(self, by_scheme: dict[str, str], no_proxy: str) -> None:
        self._by_scheme = by_scheme
        self._no_proxy = no_proxy

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
            name = f"[{host}]" if ":" in host else host
            target = name if port is None else f"{name}:{port}"
            if proxy_bypass_environment(target, {"no": self._no_proxy}):
                return None
        return url

    def __repr__(self) -> str:
        # Proxy URLs may carry a password: show the schemes only.
        return f"EnvProxies(schemes={sorted(self._by_scheme)}, no_proxy={bool(self._no_proxy)})"
