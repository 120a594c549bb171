# /// script
# requires-python = ">=3.11"
# dependencies = ["litellm[proxy]==1.108.7"]
# ///
"""The LiteLLM proxy for the runner's proxy section (``_proxy_cost.py``), in its own environment.

``litellm[proxy]`` cannot go in the project's ``bench`` dependency group: every release after
1.108.7 (1.108.8 to 1.110.2) pins its ``proxy`` extra to a ``litellm-enterprise`` post-release
that was never published (1.110.2 needs ``litellm-enterprise==0.1.83.post1``; PyPI has 0.1.83),
and 1.108.7's extra caps ``rich<14`` and ``websockets<16``, which would move the whole workspace
lock (``uv.lock`` holds one version per package for every group) below what the CLI and the MCP
plugin are tested with. So this script carries its own requirements (PEP 723) and lock
(``_litellm_proxy.py.lock``, ``uv lock --script``); the runner creates its environment with
``uv sync --script`` and starts it with that environment's interpreter, so the CPU it reads from
``/proc`` is the proxy's own. CI never installs it.

Arguments are LiteLLM's (``litellm --help``): ``--config FILE --port N --num_workers 1``. The model
cost map is the copy inside the package (``LITELLM_LOCAL_MODEL_COST_MAP``): the proxy makes no
request of its own.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from litellm.proxy.proxy_cli import run_server  # noqa: E402

run_server()
