"""A Temporal worker that runs agent workflows and their activities."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from pi_sdk.plugins import load_plugins

from ._activities import AgentActivities
from ._exit import settle_at_exit
from ._registry import AgentRegistry
from ._workflow import AgentWorkflow

__all__ = ["PASSTHROUGH_MODULES", "agent_worker"]

PASSTHROUGH_MODULES = (
    "pi_sdk",
    "pi_sdk_temporal",
    "pydantic",
    "pydantic_core",
    "pluggy",
    "jsonschema",
    "opentelemetry",
)
"""Modules the workflow sandbox shares with the worker instead of re-importing per run.

pi-sdk is deterministic where the workflow uses it, and its registries (message types,
plugins) must be the worker's own. OpenTelemetry too: the ``pi-sdk-otel`` hooks that run in a
workflow import it on their first span, and the spans must go to the worker's tracer provider.
"""


def _preload() -> None:
    """Import now what the workflow imports on first use (passed through the sandbox).

    Temporal fails a workflow task that does not yield within 2 s; importing jsonschema (the
    tool-argument validation, 0.1 s when idle) inside the first workflow task of a busy worker
    took longer (seen in the scale benchmark on an oversubscribed machine). OpenTelemetry too
    when installed: ``pi-sdk-otel``'s observers import it on the first span of a workflow.
    """
    import importlib
    import importlib.util

    importlib.import_module("jsonschema.validators")
    # The observers' imports (pi-sdk-otel's first span), which read the environment at import.
    if importlib.util.find_spec("opentelemetry") is not None:
        importlib.import_module("opentelemetry.trace")
        importlib.import_module("opentelemetry.metrics")


def agent_worker(
    client: Client,
    *,
    task_queue: str,
    registry: AgentRegistry,
    workflows: Sequence[type] = (AgentWorkflow,),
    passthrough_modules: Sequence[str] = (),
    **options: Any,
) -> Worker:
    """A worker for :class:`~pi_sdk_temporal.AgentWorkflow` and its activities.

    Example:
        ```python
        worker = agent_worker(client, task_queue="agents", registry=registry)
        await worker.run()
        ```

    Args:
        client: A connected Temporal client.
        task_queue: The queue the workflows are started on.
        registry: The tools and models workflows may name.
        workflows: The workflow classes: :class:`~pi_sdk_temporal.AgentWorkflow` and/or
            subclasses of it (:meth:`~pi_sdk_temporal.AgentWorkflow.configure_agent`).
        passthrough_modules: More modules the sandbox shares with the worker (e.g. the
            module of a subclass's callables), beside :data:`PASSTHROUGH_MODULES`.
        **options: Passed to :class:`temporalio.worker.Worker` (``max_concurrent_activities``,
            ``identity``...).

    A process that built one waits at exit (at most 5 s) until temporalio's native threads
    are out of Python, so that it does not abort while finalizing (``docs/temporal.md``,
    "Exiting cleanly").
    """
    settle_at_exit()
    load_plugins()  # once, outside the sandbox: plugin hooks run inside the workflow
    _preload()
    runner = SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(
            *PASSTHROUGH_MODULES, *passthrough_modules
        )
    )
    return Worker(
        client,
        task_queue=task_queue,
        workflows=list(workflows),
        activities=AgentActivities(registry).all(),
        workflow_runner=runner,
        **options,
    )
