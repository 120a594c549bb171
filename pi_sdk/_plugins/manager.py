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
the same on every machine. :func:`pi_sdk.plugins.hook_implementations` returns it.

The manager knows no registry. It counts its changes in :attr:`PluginManager.generation`;
the registries (:mod:`pi_sdk._models.default`, :mod:`pi_sdk._agent.messages`) ask its hooks and
keep
the answers until that number changes (llm's ``get_models()`` model, with a cache).

Tests use a fresh manager (:func:`use_plugin_manager`, or the ``plugin_manager`` fixture in
``tests/conftest.py``) and register plugin objects directly with ``pm.register(obj, name=...)``.
"""

from __future__ import annotations

import inspect
import os
import threading
import types
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

import pluggy

from pi_sdk._plugins.entry_points import entry_points as _entry_points
from pi_sdk._plugins.provider_plugin import as_plugin
from pi_sdk.errors import PluginLoadError
from pi_sdk.plugins import hookspecs

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOAD_PLUGINS_ENV",
    "PluginManager",
    "get_plugin_manager",
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
    {
        "register_providers",
        "register_api_providers",
        "register_models",
        "register_message_types",
        "get_api_key",
        "on_model_call",
    }
)
"""Hooks called synchronously by pluggy: an ``async def`` implementation would never run."""

_AWAITED_HOOKS = frozenset(
    {"on_payload", "before_tool_call", "after_tool_call", "on_agent_event", "on_model_call"}
)
"""Hooks pi-sdk calls one implementation at a time, awaiting awaitables (no wrappers)."""


class PluginManager(pluggy.PluginManager):
    """pluggy's manager with pi-sdk's hookspecs and stricter validation.

    On top of pluggy's own checks, :meth:`register` rejects, with a
    :class:`pluggy.PluginValidationError` that names the plugin and hook:

    * an implementation whose name matches no hookspec (a typo such as ``register_model``
      would otherwise be ignored silently), unless marked ``optionalhook=True``;
    * keyword-only parameters (pluggy passes only positional-or-keyword parameters);
    * ``async def`` on a hook pi-sdk calls synchronously (``register_*``, ``get_api_key``);
    * ``wrapper=True`` / ``hookwrapper=True`` on a hook pi-sdk calls one implementation at
      a time (``on_payload``, ``before_tool_call``, ``after_tool_call``, ``on_agent_event``,
      ``on_model_call``).
    """

    def __init__(self) -> None:
        super().__init__(ENTRY_POINT_GROUP)
        self.add_hookspecs(hookspecs)
        self.entry_points_loaded = False
        """Whether :meth:`load_entry_points` has run (it runs at most once)."""
        self.load_errors: list[PluginLoadError] = []
        """Plugins that failed to load, in load order."""
        self.distributions: dict[str, tuple[str, str]] = {}
        """Plugin name -> (distribution name, version), for entry-point plugins (those that
        failed to load included)."""
        self.missing: list[str] = []
        """Names :data:`LOAD_PLUGINS_ENV` asks for that no installed plugin has (each also a
        ``RuntimeWarning``)."""
        self.generation = 0
        """Bumped by every :meth:`register` / :meth:`unregister`: readers of the hooks rebuild
        what they collected when it changed."""
        self._lock = threading.RLock()
        self._wrappers: dict[int, tuple[object, object]] = {}
        """``id(providers)`` -> (the providers, the plugin registered for them)."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        """Return pluggy's options for ``plugin.name`` after pi-sdk's checks (see class doc)."""
        if _plain_module_attribute(plugin, name, self.project_name + "_impl"):
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None:
            return None
        hook_name = opts.get("specname") or name
        function: Any = getattr(plugin, name)  # a marked function: safe to bind
        spec_names = _spec_names()
        if hook_name not in spec_names and not opts.get("optionalhook"):
            import difflib  # only to word an error

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
        """Register ``plugin`` (see pluggy); the registries see it on their next access.

        ``plugin`` may also be a :class:`~pi_sdk.Provider` or a sequence of them (what a
        provider package's entry point names): it is registered through the
        ``register_providers`` hook (:mod:`pi_sdk._plugins.provider_plugin`).

        Raises:
            pluggy.PluginValidationError: a hook implementation breaks a rule (class doc).
            ValueError: the name or the object is already registered.
            TypeError: a sequence holding something other than providers.
        """
        wrapped = as_plugin(plugin, name or "providers")
        if wrapped is not plugin:
            self._wrappers[id(plugin)] = (plugin, wrapped)
        try:
            return super().register(wrapped, name)
        finally:
            self.generation += 1

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any | None:
        """Unregister a plugin (see pluggy); the registries forget its registrations."""
        if plugin is not None and id(plugin) in self._wrappers:
            plugin = self._wrappers.pop(id(plugin))[1]
        try:
            return super().unregister(plugin, name)
        finally:
            self.generation += 1

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
            entry_points = sorted(_entry_points(ENTRY_POINT_GROUP), key=lambda e: e.name)
            seen: dict[str, str] = {}
            matched: set[str] = set()
            for entry_point in entry_points:
                dist_name, version = entry_point.dist_name, entry_point.version
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
                self.distributions[entry_point.name] = (dist_name, version)
                try:
                    self.register(entry_point.load(), name=entry_point.name)
                except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop the rest
                    self._fail(entry_point.name, exc)
            for key, raw in sorted((allowed or {}).items()):
                if key not in matched:
                    self.missing.append(raw)
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


_HOOKABLE = (staticmethod, classmethod, types.MethodType)


def _plain_module_attribute(plugin: object, name: str, marker: str) -> bool:
    """Whether ``plugin.name`` is a module value pluggy skips (no function, or unmarked).

    ``marker`` is the hookimpl marker attribute. pluggy reads every name of ``dir(plugin)``
    with :func:`inspect.getattr_static` (tens of µs each, most of registering a module plugin);
    a module's own values answer the same here at once. Anything else (not in the module's
    ``__dict__``, a method wrapper, a marked function) is left to pluggy.
    """
    if not isinstance(plugin, types.ModuleType):
        return False
    value = vars(plugin).get(name, _HOOKABLE)
    if value is _HOOKABLE or isinstance(value, _HOOKABLE):
        return False
    return type(value) is not types.FunctionType or marker not in value.__dict__


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

    The registries then answer from the new manager's plugins (and the registrations made by
    hand while it is active); switching back brings the previous manager's answers back.

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
    with _pm_lock:
        previous, _pm = _pm, pm
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
