"""The plugin manager: lazy, idempotent loading of the ``pi_sdk`` entry-point group.

Every extension of pi-sdk, the built-in providers included, is a plugin: a module (or any
object) with ``@pi_sdk.hookimpl`` functions named after the hooks in ``pi_sdk.plugins.hookspecs``,
published through an entry point in its ``pyproject.toml``:

```toml
[project.entry-points.pi_sdk]
echo = "pi_sdk_echo"
```

Loading happens once, on first use of the registries or hooks (never at ``import pi_sdk``).
``PI_SDK_LOAD_PLUGINS="a,b"`` restricts loading to the named plugins (entry-point names or
distribution names; an empty string loads none). A plugin that fails to import or to validate
is reported by name (a :class:`RuntimeWarning` and :func:`plugin_load_errors`) while the others
still load.

**Plugin order.** Hooks with several answers run in pluggy's call order, the same order
``pm.hook.<name>(...)`` uses: implementations marked ``tryfirst=True`` first, then the others
from the most recently registered plugin to the earliest, then ``trylast=True`` ones.
Entry-point plugins are registered in alphabetical order of entry-point name, so the order is
the same on every machine. :func:`hook_implementations` returns it.

Tests use a fresh manager (:func:`use_plugin_manager`, or the ``plugin_manager`` fixture in
``tests/conftest.py``) and register plugin objects directly with ``pm.register(obj, name=...)``.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.metadata
import inspect
import os
import threading
import warnings
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy

from pi_sdk.errors import PluginLoadError
from pi_sdk.plugins import hookspecs

if TYPE_CHECKING:
    from pydantic import BaseModel

    from pi_sdk._abort import AbortSignal
    from pi_sdk.agent._types import (
        AfterToolCallContext,
        AfterToolCallResult,
        BeforeToolCallContext,
        BeforeToolCallResult,
    )
    from pi_sdk.types import Message

__all__ = [
    "BLOCKED_REASON",
    "ENTRY_POINT_GROUP",
    "LOAD_PLUGINS_ENV",
    "PluginInfo",
    "PluginManager",
    "call_after_tool_call_plugins",
    "call_before_tool_call_plugins",
    "call_hook_implementation",
    "describe_plugins",
    "get_plugin_manager",
    "hook_implementations",
    "load_plugins",
    "plugin_load_errors",
    "restore_plugin_manager",
    "set_plugin_manager",
    "use_plugin_manager",
]

ENTRY_POINT_GROUP = "pi_sdk"
"""The entry-point group plugins publish under (also pluggy's project name)."""

LOAD_PLUGINS_ENV = "PI_SDK_LOAD_PLUGINS"
"""Comma-separated entry-point or distribution names to load; unset loads all, ``""`` none."""

_SYNC_ONLY_HOOKS = frozenset(
    {"register_api_providers", "register_models", "register_message_types", "get_api_key"}
)
"""Hooks called synchronously by pluggy: an ``async def`` implementation would never run."""

_AWAITED_HOOKS = frozenset({"on_payload", "before_tool_call", "after_tool_call"})
"""Hooks pi-sdk calls one implementation at a time, awaiting awaitables (no wrappers)."""


class PluginManager(pluggy.PluginManager):
    """pluggy's manager with pi-sdk's hookspecs and stricter validation.

    On top of pluggy's own checks, :meth:`register` rejects, with a
    :class:`pluggy.PluginValidationError` that names the plugin and hook:

    * an implementation whose name matches no hookspec (a typo such as ``register_model``
      would otherwise be ignored silently), unless marked ``optionalhook=True``;
    * keyword-only parameters (pluggy passes only positional-or-keyword parameters);
    * ``async def`` on a hook pi-sdk calls synchronously (``register_*``, ``get_api_key``);
    * ``wrapper=True`` / ``hookwrapper=True`` on a hook pi-sdk awaits one implementation at
      a time (``on_payload``, ``before_tool_call``, ``after_tool_call``).
    """

    def __init__(self) -> None:
        super().__init__(ENTRY_POINT_GROUP)
        self.add_hookspecs(hookspecs)
        self.entry_points_loaded = False
        """Whether :meth:`load_entry_points` has run (it runs at most once)."""
        self.load_errors: list[PluginLoadError] = []
        """Plugins that failed to load, in load order."""
        self.distributions: dict[str, tuple[str, str]] = {}
        """Plugin name -> (distribution name, version), for entry-point plugins."""
        self._lock = threading.RLock()
        self._active = False

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        """Return pluggy's options for ``plugin.name`` after pi-sdk's checks (see class doc)."""
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None:
            return None
        hook_name = opts.get("specname") or name
        function: Any = getattr(plugin, name)  # a marked function: safe to bind
        spec_names = _spec_names()
        if hook_name not in spec_names and not opts.get("optionalhook"):
            hint = difflib.get_close_matches(hook_name, spec_names, n=1)
            extra = f"; did you mean {hint[0]!r}?" if hint else ""
            raise pluggy.PluginValidationError(
                plugin, f"{_label(plugin)} implements unknown hook {hook_name!r}{extra}"
            )
        parameters = inspect.signature(function).parameters.values()
        keyword_only = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        if keyword_only:
            raise pluggy.PluginValidationError(
                plugin,
                f"{_label(plugin)} hook {hook_name!r}: keyword-only parameters {keyword_only}"
                " are never passed by pluggy; declare them as plain parameters",
            )
        is_async = inspect.iscoroutinefunction(function)
        if hook_name in _SYNC_ONLY_HOOKS and is_async:
            raise pluggy.PluginValidationError(
                plugin, f"{_label(plugin)} hook {hook_name!r} must be a plain def, not async def"
            )
        if hook_name in _AWAITED_HOOKS and (opts.get("wrapper") or opts.get("hookwrapper")):
            raise pluggy.PluginValidationError(
                plugin, f"{_label(plugin)} hook {hook_name!r} does not support wrappers"
            )
        return opts

    def register(self, plugin: object, name: str | None = None) -> str | None:
        """Register ``plugin`` (see pluggy); in the active manager it takes effect at once.

        Its message types enter the message-type registry now; its providers and models enter
        the registries now if they were already filled (else on their first access).

        Raises:
            pluggy.PluginValidationError: a hook implementation breaks a rule (class doc).
            ValueError: the name or the object is already registered.
            ConfigurationError: its ``register_message_types`` claims a role another type has;
                the plugin is not left registered.
        """
        plugin_name = super().register(plugin, name)
        if plugin_name is not None and self._active:
            try:
                self._feed_message_types(plugin_name)
                self._feed_registry(plugin_name)
            except BaseException:
                self.unregister(name=plugin_name)
                raise
        return plugin_name

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any | None:
        """Unregister a plugin (see pluggy) and forget the message types it registered."""
        if name is None and plugin is not None:
            name = self.get_name(plugin)
        if name is not None and self._active:
            from pi_sdk.agent._messages import unregister_message_types

            unregister_message_types(_message_source(name))
        return super().unregister(plugin, name)

    def activate(self) -> None:
        """Connect this manager to the registries (it became the active manager).

        Every plugin's ``register_message_types`` feeds :mod:`pi_sdk.agent._messages` now, and from
        here on a plugin registered later takes effect at once (:meth:`register`). Idempotent;
        :func:`set_plugin_manager` / :func:`restore_plugin_manager` call it.
        """
        if self._active:
            return
        self._active = True
        for name, plugin in self.list_name_plugin():
            if plugin is not None:
                self._feed_message_types(name)

    def deactivate(self) -> None:
        """Disconnect from the registries: forget the message types its plugins registered."""
        if not self._active:
            return
        self._active = False
        from pi_sdk.agent._messages import unregister_message_types

        for name, _plugin in self.list_name_plugin():
            unregister_message_types(_message_source(name))

    def _feed_message_types(self, plugin_name: str) -> None:
        self._call_own(plugin_name, "register_message_types", _message_registrar(plugin_name))

    def _feed_registry(self, plugin_name: str) -> None:
        """A plugin registered after the registries filled contributes at once."""
        from pi_sdk import _registry as registry

        if not registry.is_loaded():
            return  # the first access will ask every plugin, this one included
        self._call_own(plugin_name, "register_api_providers", registry.register_api_provider)
        self._call_own(plugin_name, "register_models", registry.register_model)

    def _call_own(self, plugin_name: str, hook_name: str, register: Callable[..., None]) -> None:
        """Call one plugin's implementation of a ``register_*`` hook."""
        plugin = self.get_plugin(plugin_name)
        caller: pluggy.HookCaller = getattr(self.hook, hook_name)
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin:
                impl.function(*[register for _ in impl.argnames])  # the spec has one argument

    def load_entry_points(self) -> None:
        """Register every plugin of the ``pi_sdk`` entry-point group, once (idempotent).

        Honors :data:`LOAD_PLUGINS_ENV` and pluggy's ``set_blocked(name)``. A plugin already
        registered under the same name (e.g. by a test) is left as it is. Failures become
        :class:`PluginLoadError` entries in :attr:`load_errors` plus a ``RuntimeWarning``;
        the other plugins still load.
        """
        with self._lock:
            if self.entry_points_loaded:
                return
            self.entry_points_loaded = True
            allowed = _allowed_names()
            entry_points = sorted(
                importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name
            )
            seen: dict[str, str] = {}
            matched: set[str] = set()
            for entry_point in entry_points:
                dist_name, version = _dist_of(entry_point)
                if allowed is not None:
                    keys = {entry_point.name, _normalize(entry_point.name), _normalize(dist_name)}
                    if not keys & allowed.keys():
                        continue
                    matched |= keys
                if entry_point.name in seen:
                    self._fail(
                        entry_point.name,
                        ValueError(
                            f"entry-point name also used by {seen[entry_point.name]};"
                            f" {dist_name or 'this one'} not loaded"
                        ),
                    )
                    continue
                seen[entry_point.name] = dist_name
                if self.is_blocked(entry_point.name) or self.has_plugin(entry_point.name):
                    continue
                try:
                    module = entry_point.load()
                    self.register(module, name=entry_point.name)
                except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop the rest
                    self._fail(entry_point.name, exc)
                    continue
                self.distributions[entry_point.name] = (dist_name, version)
            for key, raw in sorted((allowed or {}).items()):
                if key not in matched:
                    installed = ", ".join(sorted(seen)) or "none"
                    warnings.warn(
                        f"{LOAD_PLUGINS_ENV} names {raw!r}, which is not an installed plugin"
                        f" (installed: {installed})",
                        RuntimeWarning,
                        stacklevel=3,
                    )

    def _fail(self, name: str, exc: BaseException) -> None:
        error = PluginLoadError(name, exc)
        self.load_errors.append(error)
        warnings.warn(str(error), RuntimeWarning, stacklevel=4)


def _message_source(plugin_name: str) -> str:
    return f"plugin:{plugin_name}"


def _message_registrar(plugin_name: str) -> Callable[..., None]:
    """The ``register`` callback handed to one plugin's ``register_message_types``."""
    from pi_sdk.agent._messages import get_message_types, register_message_type
    from pi_sdk.errors import ConfigurationError

    def register(
        message_type: type[BaseModel],
        convert_to_llm: Callable[[Any], Sequence[Message]],
        *,
        replace: bool = False,
    ) -> None:
        source = _message_source(plugin_name)
        try:
            register_message_type(message_type, convert_to_llm, replace=replace, source_id=source)
        except ConfigurationError:
            if not any(t is message_type for t in get_message_types().values()):
                raise  # another type holds the role
            # The same type again (e.g. the manager became active again): refresh it.
            register_message_type(message_type, convert_to_llm, replace=True, source_id=source)

    return register


def _spec_names() -> list[str]:
    return [n for n, f in vars(hookspecs).items() if hasattr(f, "pi_sdk_spec")]


def _label(plugin: object) -> str:
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    return f"plugin {name!r}"


def _normalize(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(".", "-")


def _allowed_names() -> dict[str, str] | None:
    """Normalized name -> name as written in :data:`LOAD_PLUGINS_ENV`; ``None`` when unset."""
    raw = os.environ.get(LOAD_PLUGINS_ENV)
    if raw is None:
        return None
    return {_normalize(n): n.strip() for n in raw.split(",") if n.strip()}


def _dist_of(entry_point: importlib.metadata.EntryPoint) -> tuple[str, str]:
    dist = entry_point.dist
    if dist is None:
        return "", ""
    return dist.metadata["Name"] or "", dist.version


# --- the active manager ------------------------------------------------------------------------

_pm: PluginManager | None = None
_pm_lock = threading.Lock()


def get_plugin_manager() -> PluginManager:
    """Return the active plugin manager, loading entry-point plugins on first use.

    Returns:
        The process-wide :class:`PluginManager` (or the one a test activated).
    """
    global _pm
    pm = _pm
    if pm is None:
        with _pm_lock:
            if _pm is None:
                _pm = PluginManager()
                _pm.activate()
            pm = _pm
    if not pm.entry_points_loaded:
        pm.load_entry_points()
    return pm


def load_plugins() -> None:
    """Load every entry point of the ``pi_sdk`` group once (idempotent, thread-safe)."""
    get_plugin_manager()


def plugin_load_errors() -> list[PluginLoadError]:
    """Return the plugins that failed to load, each naming its plugin and cause."""
    return list(get_plugin_manager().load_errors)


def set_plugin_manager(
    pm: pluggy.PluginManager | None, *, load_entry_points: bool = False
) -> PluginManager | None:
    """Make ``pm`` the active manager; ``None`` starts a fresh default one on next use.

    The model/provider registries and the plugin message types are reset, so they fill again
    from the new manager's plugins on next access (hand registrations are forgotten too).

    Args:
        pm: A :class:`PluginManager` (plugins registered with ``pm.register(obj, name=...)``),
            or a plain ``pluggy.PluginManager("pi_sdk")``, whose plugins are re-registered
            into a new :class:`PluginManager`.
        load_entry_points: Whether installed entry-point plugins load into ``pm`` too (on
            next use). Ignored for ``None``: a fresh default manager always loads them.

    Returns:
        The manager that was active before (``None`` if none was created yet); pass it to
        :func:`restore_plugin_manager` to switch back.
    """
    active: PluginManager | None = None
    if pm is not None:
        active = pm if isinstance(pm, PluginManager) else _adopt(pm)
        if not load_entry_points:
            active.entry_points_loaded = True
    return restore_plugin_manager(active)


def restore_plugin_manager(pm: PluginManager | None) -> PluginManager | None:
    """Make ``pm`` active again as it is (e.g. the value :func:`set_plugin_manager` returned).

    Unlike :func:`set_plugin_manager` this leaves ``pm``'s entry-point loading state alone.

    Returns:
        The manager that was active before.
    """
    global _pm
    from pi_sdk import _registry as registry

    with _pm_lock:
        previous, _pm = _pm, pm
        if previous is not None:
            previous.deactivate()
        registry.reset()
        if pm is not None:
            pm.activate()
    return previous


@contextmanager
def use_plugin_manager(
    pm: PluginManager | None = None, *, load_entry_points: bool = False
) -> Generator[PluginManager]:
    """Activate a fresh (or the given) manager for a block, then restore the previous one.

    Example:
        ```python
        with use_plugin_manager() as pm:
            pm.register(my_plugin, name="my-plugin")
            model = pi_sdk.get_model("echo", "echo-1")  # only my_plugin's registrations
        ```

    Args:
        pm: The manager to activate; default: a new :class:`PluginManager`.
        load_entry_points: Whether installed entry-point plugins load into it too.

    Yields:
        The active manager.
    """
    manager = pm if pm is not None else PluginManager()
    previous = set_plugin_manager(manager, load_entry_points=load_entry_points)
    try:
        yield manager
    finally:
        restore_plugin_manager(previous)


def _adopt(pm: pluggy.PluginManager) -> PluginManager:
    """Wrap a plain pluggy manager: a new PluginManager holding the same plugins."""
    adopted = PluginManager()
    for name, plugin in pm.list_name_plugin():
        if plugin is not None:
            adopted.register(plugin, name=name)
    return adopted


# --- hook calling helpers ------------------------------------------------------------------------


def hook_implementations(hook_name: str) -> list[pluggy.HookImpl]:
    """Return the active manager's implementations of ``hook_name`` in plugin order.

    Raises:
        AttributeError: no hook of that name exists.
    """
    caller: pluggy.HookCaller = getattr(get_plugin_manager().hook, hook_name)
    return list(reversed(caller.get_hookimpls()))


async def call_hook_implementation(impl: pluggy.HookImpl, /, **kwargs: Any) -> Any:
    """Call one implementation with the arguments it declares; await an awaitable result.

    Passes only the parameters the implementation names (pluggy's opt-in arguments), so a spec
    can grow without breaking older plugins.

    Raises:
        Exception: Whatever the implementation raises, with a note naming the plugin and hook.
    """
    args = [kwargs[name] for name in impl.argnames]
    extra = {name: kwargs[name] for name in impl.kwargnames if name in kwargs}
    try:
        result = impl.function(*args, **extra)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:
        exc.add_note(f"in hook {impl.function.__name__!r} of plugin {impl.plugin_name!r}")
        raise
    return result


# --- tool-call hooks ---------------------------------------------------------------------------

BLOCKED_REASON = "Tool execution was blocked"
"""The error text of a blocked call whose plugin gave no reason (pi-mono's wording)."""


async def call_before_tool_call_plugins(
    context: BeforeToolCallContext, signal: AbortSignal | None = None
) -> BeforeToolCallResult | None:
    """Ask every plugin's ``before_tool_call`` about one call; any block wins.

    Implementations run in plugin order, awaited one at a time. The first answer with
    ``block=True`` is returned at once (later plugins are not asked); its ``reason`` defaults to
    :data:`BLOCKED_REASON`. An implementation that raises, or answers something other than
    ``None`` / :class:`pi_sdk.BeforeToolCallResult`, blocks the call (fail closed) with a reason
    naming the plugin. The agent loop calls this after the Agent's own ``before_tool_call``
    callable allowed the call.

    Args:
        context: The call about to run.
        signal: The run's abort signal, passed to implementations that declare ``signal``.

    Returns:
        The blocking answer, or ``None`` when every plugin allowed the call.
    """
    from pi_sdk.agent._types import BeforeToolCallResult

    for impl in hook_implementations("before_tool_call"):
        try:
            answer = await call_hook_implementation(impl, context=context, signal=signal)
        except Exception as exc:  # noqa: BLE001 - a failing policy must not let the call through
            return BeforeToolCallResult(
                block=True,
                reason=f"before_tool_call of plugin {impl.plugin_name!r} failed:"
                f" {type(exc).__name__}: {exc}",
            )
        if answer is None:
            continue
        if not isinstance(answer, BeforeToolCallResult):
            return BeforeToolCallResult(
                block=True,
                reason=f"before_tool_call of plugin {impl.plugin_name!r} returned"
                f" {type(answer).__name__}, expected BeforeToolCallResult or None",
            )
        if answer.block:
            return BeforeToolCallResult(block=True, reason=answer.reason or BLOCKED_REASON)
    return None


async def call_after_tool_call_plugins(
    context: AfterToolCallContext, signal: AbortSignal | None = None
) -> AfterToolCallResult | None:
    """Let every plugin's ``after_tool_call`` change one result; changes apply in plugin order.

    Each implementation sees ``context`` with the result as the previous ones left it (a new
    :class:`pi_sdk.AgentToolResult`; the original is not mutated). Every field of an answer
    that is not ``None`` replaces the current value. The agent loop calls this after the
    Agent's own ``after_tool_call`` callable (plugins see its changes) and applies the returned
    fields the same way.

    Args:
        context: The call that ran, with its result.
        signal: The run's abort signal, passed to implementations that declare ``signal``.

    Returns:
        The combined change (each field the last value a plugin set), or ``None`` when no
        plugin changed anything.

    Raises:
        TypeError: an implementation answered something other than ``None`` /
            :class:`pi_sdk.AfterToolCallResult` (names the plugin).
        Exception: whatever an implementation raised, with a note naming the plugin (pi-mono
            lets ``afterToolCall`` errors propagate).
    """
    from pi_sdk.agent._types import AfterToolCallResult, AgentToolResult

    impls = hook_implementations("after_tool_call")
    combined = AfterToolCallResult()
    changed = False
    current = context
    for impl in impls:
        answer = await call_hook_implementation(impl, context=current, signal=signal)
        if answer is None:
            continue
        if not isinstance(answer, AfterToolCallResult):
            raise TypeError(
                f"after_tool_call of plugin {impl.plugin_name!r} returned"
                f" {type(answer).__name__}, expected AfterToolCallResult or None"
            )
        changed = True
        result = current.result
        if answer.content is not None:
            combined.content = answer.content
        if answer.details is not None:
            combined.details = answer.details
        if answer.is_error is not None:
            combined.is_error = answer.is_error
        if answer.terminate is not None:
            combined.terminate = answer.terminate
        current = dataclasses.replace(
            current,
            result=AgentToolResult(
                content=list(answer.content) if answer.content is not None else result.content,
                details=answer.details if answer.details is not None else result.details,
                terminate=answer.terminate if answer.terminate is not None else result.terminate,
            ),
            is_error=answer.is_error if answer.is_error is not None else current.is_error,
        )
    return combined if changed else None


# --- `pi-sdk plugins` -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PluginInfo:
    """One plugin as ``pi-sdk plugins`` lists it."""

    name: str
    """Registered name (the entry-point name for installed plugins)."""
    hooks: tuple[str, ...]
    """Hook names it implements, sorted."""
    module: str | None = None
    """Import name of the plugin module (or of the object's class)."""
    distribution: str | None = None
    """Distribution that published it, e.g. ``pi-sdk-anthropic``; ``None`` if registered by hand."""
    version: str | None = None
    """That distribution's version."""
    error: str | None = None
    """Why it failed to load; ``hooks`` is then empty."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape ``pi-sdk plugins --json`` prints (``hooks`` as a list)."""
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "hooks": list(self.hooks),
            "error": self.error,
        }


def describe_plugins() -> list[PluginInfo]:
    """List the active manager's plugins, loaded and failed, sorted by name.

    Returns:
        One :class:`PluginInfo` per plugin; failed plugins carry ``error`` and no hooks.
    """
    pm = get_plugin_manager()
    infos: list[PluginInfo] = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        callers = pm.get_hookcallers(plugin) or []
        dist, version = pm.distributions.get(name, (None, None))
        module = getattr(plugin, "__name__", None) or type(plugin).__module__
        infos.append(
            PluginInfo(
                name=name,
                hooks=tuple(sorted(c.name for c in callers)),
                module=module,
                distribution=dist or None,
                version=version or None,
            )
        )
    for error in pm.load_errors:
        cause = f"{type(error.cause).__name__}: {error.cause}"
        infos.append(PluginInfo(name=error.plugin, hooks=(), error=cause))
    return sorted(infos, key=lambda i: i.name)
