"""pi-sdk-pytest as a distribution: its namespace, and what it may import of pi-sdk.

It ships to users and third-party provider packages, so it uses pi-sdk's public namespaces
only (``pi_sdk``, ``pi_sdk.provider``, ``pi_sdk.plugins``, ``pi_sdk.testing``): a private
module can change in any release (docs/api.md). Checked on every import statement of every
module, as tests/core/test_layers.py reads pi_sdk's.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pi_sdk_pytest

PACKAGE = Path(pi_sdk_pytest.__file__).parent
PUBLIC = {"pi_sdk", "pi_sdk.provider", "pi_sdk.plugins", "pi_sdk.testing"}


def imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports (absolute; relative imports are the package's own)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return found


def test_the_package_imports_only_public_pi_sdk_namespaces() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 15
    private = [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules
        for name in imported_modules(path)
        if name.split(".")[0] == "pi_sdk" and name not in PUBLIC
    ]
    assert private == []


def test_the_namespace_exports_what_its_table_says() -> None:
    table = pi_sdk_pytest._EXPORTS  # pyright: ignore[reportPrivateUsage]
    assert pi_sdk_pytest.__all__ == sorted(table)
    for name in pi_sdk_pytest.__all__:
        assert getattr(pi_sdk_pytest, name) is not None, name
    typed = {
        alias.asname
        for node in ast.walk(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname
    }
    assert typed == set(table)  # the TYPE_CHECKING re-exports name the same names
