"""Loading the installed plugins imports no vendor SDK and no optional heavy dependency.

Every pi-sdk process loads the ``pi_sdk`` entry points of what is installed (issue 16, item 5:
plugin discovery at most 50 ms more than ``import pi_sdk``). A provider or plugin package imports
its SDK or framework on first use, not when discovered: importing ``temporalio`` alone costs
about 290 ms, the vendor SDKs 30-150 ms each.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "anthropic",
    "boto3",
    "botocore",
    "google.genai",
    "mistralai",
    "openai",
    "rich",
    "starlette",
    "temporalio",
    "uvicorn",
    "vcr",
)

_PROBE = """
import json, sys
import pi_sdk.plugins
manager = pi_sdk.plugins.get_plugin_manager()
names = sorted(name for name, _ in manager.list_name_plugin())
print(json.dumps({"plugins": names, "modules": sorted(sys.modules)}))
"""


def test_discovering_every_installed_plugin_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    found = json.loads(done.stdout.splitlines()[-1])
    # the probe saw the first-party packages this workspace installs, so the check covers them
    assert {"temporal", "openai", "anthropic"} <= set(found["plugins"]), found["plugins"]
    loaded = set(found["modules"])
    heavy = [name for name in HEAVY if name in loaded]
    assert heavy == [], f"plugin discovery imported {heavy}"


def test_a_name_of_pi_sdk_temporal_is_imported_on_first_use() -> None:
    probe = (
        "import sys, pi_sdk_temporal as t\n"
        "before = 'temporalio' in sys.modules\n"
        "workflow = t.AgentWorkflow\n"
        "print(before, 'temporalio' in sys.modules, workflow.__module__,"
        " sorted(t.__all__) == sorted(n for n in dir(t) if n in t.__all__))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "True", "pi_sdk_temporal._workflow", "True"]
