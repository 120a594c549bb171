#!/usr/bin/env python3
"""Generate ``providers/azure/pi_sdk_azure/models.json`` (provider ``azure-openai-responses``).

Same pipeline as ``scripts/generate_models.py`` (its fetch, integrity check, literal parser and
field validation), read from a newer pi-ai release: Azure models are taken from
``@mariozechner/pi-ai`` 0.73.1, pinned below by its integrity hash. pi-ai lists them without a
base URL (``""``): the endpoint comes from the environment or the call (docs/providers/azure.md).

Usage:
    python scripts/generate_models_azure.py            # write models.json
    python scripts/generate_models_azure.py --check    # exit 1 on drift
    python scripts/generate_models_azure.py --tarball path/to/pi-ai-0.73.1.tgz
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate_models as gm  # noqa: E402 - the shared pipeline, parametrized below

gm.VERSION = "0.73.1"
gm.INTEGRITY = "sha512-Jh4lXawZYuC83HzSIYuVum9NBqJD49i4JOt3H96cGW/924cwJMOyUs1Mv/e4QPzTXnzrqMoGviNQnvGgSu1LSg=="  # noqa: E501
gm.PROVIDERS = {"azure-openai-responses": ("azure-openai-responses", "")}
gm.OPTIONAL_PROVIDERS = set()
gm.OUTPUTS = {"providers/azure/pi_sdk_azure/models.json": ["azure-openai-responses"]}

if __name__ == "__main__":
    sys.exit(gm.main())
