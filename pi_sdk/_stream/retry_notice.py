"""Telling a caller that a call is about to retry: ``StreamOptions.on_retry`` and a log line.

Runs only on the retry path (a failed attempt that will be retried), never per event: a call
whose first attempt succeeds does none of this. The notice goes to the logger
``pi_sdk.retry`` (INFO: ``"anthropic/claude-sonnet-4-5: attempt 1 of 3 failed (429 ...);
retrying in 1.2 s"``, the :class:`~pi_sdk.options.RetryNotice` in the record's ``retry``
attribute), then to the caller's ``on_retry`` (sync or async). A hook that raises is logged
and ignored: a progress report must not change the call's outcome.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable

from pi_sdk.options import RetryNotice
from pi_sdk.types import Model

__all__ = ["announce_retry", "describe_retry"]

logger = logging.getLogger("pi_sdk.retry")


def describe_retry(notice: RetryNotice) -> str:
    """``"attempt 1 of 3 failed (429 ...); retrying in 1.2 s"``: one line for a person."""
    return (
        f"attempt {notice.attempt} of {notice.max_attempts} failed ({notice.error_message});"
        f" retrying in {notice.delay_ms / 1000:.1f} s"
    )


async def announce_retry(
    model: Model, notice: RetryNotice, hook: Callable[[RetryNotice], object] | None
) -> None:
    """Log ``notice`` and hand it to ``hook``; nothing it raises escapes."""
    if logger.isEnabledFor(logging.INFO):
        logger.info(
            "%s/%s: %s", model.provider, model.id, describe_retry(notice), extra={"retry": notice}
        )
    if hook is None:
        return
    try:
        result = hook(notice)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - a progress report never breaks the call
        logger.warning("on_retry raised; the call goes on", exc_info=True)
