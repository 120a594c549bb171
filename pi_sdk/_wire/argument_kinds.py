"""Arguments of the wrong kind, named: the ``TypeError`` of a call or of an Agent setting.

``pi_sdk.stream("anthropic/claude-sonnet-4-5", ...)``, ``Agent(model="...")`` or a list of
messages for a ``Context`` are programming errors, not failed calls: they raise at once,
naming the argument, what it got and what to pass, instead of an ``AttributeError`` from deep
inside (or an ``error`` event about ``model_copy``).
"""

from __future__ import annotations

from pi_sdk.types import Context, Model

__all__ = ["check_call_arguments", "check_model", "described"]

_MODEL = "a pi_sdk.Model, e.g. pi_sdk.get_model('anthropic', 'claude-sonnet-4-5')"


def described(value: object) -> str:
    """``value``'s type name and repr (at most 100 characters), for a ``TypeError``'s "got"."""
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 100 else shown[:99] + '…'}"


def check_model(value: object, what: str) -> None:
    """Raise ``TypeError`` unless ``value`` is a :class:`pi_sdk.Model` (``what`` names it)."""
    if not isinstance(value, Model):
        raise TypeError(f"{what} must be {_MODEL}; got {described(value)}")


def check_call_arguments(model: object, context: object, options: object) -> None:
    """The arguments of ``stream()`` / ``complete()``.

    Raises:
        TypeError: ``model`` is not a ``Model``, ``context`` not a ``Context``, or ``options``
            neither a ``StreamOptions`` nor ``None``.
    """
    from pi_sdk.options import StreamOptions  # with the first call: the Agent's checks need none

    check_model(model, "stream() model")
    if not isinstance(context, Context):
        raise TypeError(
            "stream() context must be a pi_sdk.Context, e.g. pi_sdk.Context(messages=[...]);"
            f" got {described(context)}"
        )
    if options is not None and not isinstance(options, StreamOptions):
        raise TypeError(
            f"stream() options must be a pi_sdk.StreamOptions or None; got {described(options)}"
        )
