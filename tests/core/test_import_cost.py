"""Importing pi-sdk and its provider packages must not import any vendor SDK (issue 2).

Each check runs in a fresh interpreter, so nothing imported by other tests can hide a regression.
The provider packages are imported only when installed; the core is always checked.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

VENDOR_MODULES = (
    "anthropic",
    "openai",
    "google.genai",
    "botocore",
    "boto3",
    "aiobotocore",
    "mistralai",
    "azure.identity",
)
PROVIDER_PACKAGES = (
    "pi_sdk_anthropic",
    "pi_sdk_openai",
    "pi_sdk_google",
    "pi_sdk_bedrock",
    "pi_sdk_mistral",
    "pi_sdk_azure",
)


def _imported_after(statement: str) -> list[str]:
    code = (
        f"{statement}\n"
        "import sys\n"
        f"print(','.join(m for m in {VENDOR_MODULES!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return [m for m in result.stdout.strip().split(",") if m]


def test_core_imports_no_vendor_sdk():
    assert _imported_after("import pi_sdk") == []


def test_core_and_anthropic_provider_import_no_vendor_sdk():
    # The exact check of the issue: `import pi_sdk, pi_sdk_anthropic` leaves anthropic out.
    code = "import pi_sdk, pi_sdk_anthropic; import sys; print('anthropic' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("package", PROVIDER_PACKAGES)
def test_provider_package_imports_no_vendor_sdk(package: str):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    assert _imported_after(f"import pi_sdk, {package}") == []


def test_loading_every_plugin_imports_no_vendor_sdk():
    # Registry access loads every entry-point plugin (providers and others).
    statement = "import pi_sdk; pi_sdk.get_api_providers(); pi_sdk.get_models()"
    assert _imported_after(statement) == []
