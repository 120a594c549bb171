"""Facts read from pi-ai 1.6's own ``dist`` text in tests/node (no Node needed).

:func:`compat_defaults` reads a compat reader such as ``getAnthropicCompat``: every
``model.compat?.<flag> ?? <literal>`` in the function's body, the literal as written (``true``,
``false``, ``"auto"``). Tests that use it skip with :data:`SKIP_REASON` where the packages are
not installed (:data:`installed`).
"""

from __future__ import annotations

import re

from _support.node22 import NODE_DIR

__all__ = ["API_DIR", "SKIP_REASON", "compat_defaults", "installed"]

API_DIR = NODE_DIR / "node_modules/@earendil-works/pi-ai/dist/api"
SKIP_REASON = "tests/node's pi-ai 1.6 is not installed (npm ci --prefix tests/node)"
_DEFAULT = re.compile(r"model\.compat\?\.(\w+) \?\? (true|false|\"\w+\")")


def installed(module: str) -> bool:
    """Whether ``dist/api/<module>.js`` is there."""
    return (API_DIR / f"{module}.js").is_file()


def compat_defaults(module: str, function: str) -> dict[str, str]:
    """``{flag: literal}`` of the ``?? <literal>`` defaults in ``function`` of ``<module>.js``."""
    source = (API_DIR / f"{module}.js").read_text("utf-8")
    body = source[source.index(f"function {function}(") :]
    return dict(_DEFAULT.findall(body[: body.index("\n}\n")]))
