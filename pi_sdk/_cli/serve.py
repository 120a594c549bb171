"""``pi-sdk serve``: run the proxy server (:func:`pi_sdk.agent.proxy_app`) under uvicorn.

```
pi-sdk serve --allow 'anthropic/*' [--allow PATTERN ...] [--host H] [--port P]
             [--token-env VAR | --token-file FILE] [--max-body-bytes N] [--models FILE]
             [--cors-origin ORIGIN ...] [--header-timeout S] [--idle-timeout S]
             [--body-timeout S] [--max-connections N]
             [--workers N] [--keys-file FILE] [--rate-limit COUNT/PERIOD] [--usage-db FILE]
```

Each ``--allow`` pattern must match a registered model; a summary of what is served goes to
stderr first. Connections are held to timeouts and a cap (:mod:`pi_sdk._serve.limits`), and
every request is logged with its real outcome (:mod:`pi_sdk._serve.outcome_log`).

The token comes from the environment (``PI_SDK_PROXY_TOKEN`` by default) or a file, never
from the command line (where ``ps`` shows it). API keys are the vendors' usual environment
variables and the ``get_api_key`` hook; ``<PROVIDER>_BASE_URL`` (``ANTHROPIC_BASE_URL``,
``OPENAI_BASE_URL``) sends a provider's calls to another URL, as for ``prompt`` and ``chat``.
``--models`` registers extra models from a JSON file in pi's models shape
(``{"models": [...]}`` or a list), e.g. a model served at a private URL.
Needs the ``serve`` extra (``pi-sdk-core[serve]``: Starlette and uvicorn).

``--workers N`` runs N server processes on the one port (:mod:`pi_sdk._serve.workers`), each
with the same token, keys, models and limits. ``--keys-file`` adds named bearer keys (a JSON
object ``{"name": "token"}``); ``--rate-limit 600/min`` limits each key, counted over every
worker in the ``--usage-db`` SQLite file (default ``<data dir>/serve-usage.sqlite``), which
also keeps each key's usage (``GET /api/usage``; :mod:`pi_sdk._serve.usage_store`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, cast

from pi_sdk._cli.broken_plugins import add_broken_plugins_option, refuse_broken_plugins
from pi_sdk._cli.serve_scale import add_scale_options, read_keys, run_server, usage_store

__all__ = ["DEFAULT_TOKEN_ENV", "add_serve_parser", "run_serve"]

DEFAULT_TOKEN_ENV = "PI_SDK_PROXY_TOKEN"
"""The environment variable ``pi-sdk serve`` reads its bearer token from by default."""

_EXIT_USAGE = 2

_LIMIT_OPTIONS: tuple[tuple[str, type, float, str, str], ...] = (
    ("--body-timeout", float, 30.0, "S",
     "seconds for a request body to arrive whole, else 408 (default 30)"),
    ("--header-timeout", float, 10.0, "S",
     "seconds for a connection to send a whole request head, else closed (default 10)"),
    ("--idle-timeout", float, 5.0, "S",
     "seconds a connection may stay silent between requests (default 5)"),
    ("--max-connections", int, 0, "N",
     "open connections at most; more are answered 503 (default: from ulimit -n)"),
)  # fmt: skip
"""The connection limits' options: flag, type, default, metavar, help (pi_sdk._serve.limits)."""


def add_serve_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand to the ``pi-sdk`` parser's subparsers.

    The parsed arguments carry ``run`` (:func:`run_serve`): ``args.run(args)`` runs it.
    """
    serve = commands.add_parser("serve", help="run the model proxy server (pi's streamProxy)")
    serve.add_argument(
        "--allow",
        action="append",
        required=True,
        metavar="PATTERN",
        help="serve the models matching provider/id (glob, repeatable), e.g. 'anthropic/*'",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8787, help="port to bind (default 8787)")
    token = serve.add_mutually_exclusive_group()
    token.add_argument(
        "--token-env",
        default=DEFAULT_TOKEN_ENV,
        metavar="VAR",
        help=f"environment variable holding the bearer token (default {DEFAULT_TOKEN_ENV})",
    )
    token.add_argument("--token-file", type=Path, help="file holding the bearer token")
    serve.add_argument(
        "--max-body-bytes", type=int, default=None, help="largest request body (default 8 MiB)"
    )
    serve.add_argument("--models", type=Path, help="JSON file of extra models to register")
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let pages of this web origin call the proxy (repeatable; '*' for any)",
    )
    for flag, kind, default, metavar, text in _LIMIT_OPTIONS:
        serve.add_argument(flag, type=kind, default=default, metavar=metavar, help=text)
    add_scale_options(serve)
    serve.add_argument("--log-level", default="info", help="uvicorn's log level (default info)")
    add_broken_plugins_option(serve)
    serve.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; return the exit status (2 for a usage error).

    Before serving: every ``--allow`` pattern must match a registered model, and a summary
    (address, auth, models, keys, limits) goes to stderr (:mod:`pi_sdk._cli.serve_summary`).

    Raises:
        UsageError: a plugin failed to load and ``--allow-broken-plugins`` was not given
            (:func:`pi_sdk._cli.broken_plugins.refuse_broken_plugins`), or an ``--allow``
            pattern matches no registered model.
    """
    import importlib.util

    if importlib.util.find_spec("uvicorn") is None:
        return _fail("`pi-sdk serve` needs the serve extra: pip install 'pi-sdk-core[serve]'")
    refuse_broken_plugins(args, sys.stderr)
    from pi_sdk._cli.serve_summary import Serving, served_models, summary
    from pi_sdk._cli.setup import with_base_url
    from pi_sdk._models.default import get_model, register_model
    from pi_sdk._serve.limits import ServerLimits, quiet_accept_errors, uvicorn_config
    from pi_sdk._serve.policy import DEFAULT_MAX_BODY_BYTES, ProxyPolicy
    from pi_sdk._serve.server import proxy_app
    from pi_sdk.types import Model

    if args.token_file is not None:
        try:
            token = args.token_file.read_text("utf-8").strip()
        except OSError as exc:
            return _fail(f"cannot read the token file: {exc.strerror}")
    else:
        token = os.environ.get(args.token_env, "").strip()
    source = args.token_file or f"${args.token_env}"
    if not token:
        return _fail(f"no bearer token: {source} is empty or unset")
    try:
        for number, model in enumerate(_read_models(args.models) if args.models else []):
            register_model(_model(Model, model, args.models, number))
        policy = ProxyPolicy(
            token=token,
            allow=tuple(args.allow),
            max_body_bytes=args.max_body_bytes or DEFAULT_MAX_BODY_BYTES,
            cors_origins=tuple(args.cors_origin),
            resolve_model=lambda provider, model_id: with_base_url(get_model(provider, model_id)),
            body_timeout_ms=args.body_timeout * 1000,
            keys=read_keys(args.keys_file) if args.keys_file else {},
        )
        limits = ServerLimits(
            header_timeout_s=args.header_timeout,
            idle_timeout_s=args.idle_timeout,
            max_connections=args.max_connections,
        )
        usage = usage_store(args)
    except (OSError, ValueError) as exc:
        return _fail(str(exc))
    serving = Serving(
        url=f"http://{args.host}:{args.port}",
        token_source=str(source),
        token_length=len(token),
        models=served_models(policy.allow),
        limits=limits,
        body_timeout_ms=policy.body_timeout_ms,
        max_body_bytes=policy.max_body_bytes,
        cors_origins=policy.cors_origins,
        workers=args.workers,
        keys=len(policy.keys) + 1,
        rate_limit=str(usage.rate_limit) if usage and usage.rate_limit else None,
        usage_db=str(usage.path) if usage else None,
    )
    sys.stderr.write("".join(line + "\n" for line in summary(serving)))
    sys.stderr.flush()
    _log_requests(args.log_level)
    config = uvicorn_config(
        proxy_app(policy, usage=usage), limits, host=args.host, port=args.port,
        log_level=args.log_level,
    )  # fmt: skip
    return run_server(config, args, quiet_accept_errors)


def _log_requests(level: str) -> None:
    """Print the proxy's request lines (``pi_sdk.serve``) on stderr, as uvicorn prints its own."""
    import logging

    from uvicorn.logging import DefaultFormatter

    from pi_sdk._serve.outcome_log import LOGGER_NAME

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s", use_colors=None))
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False


def _read_models(path: Path) -> list[Any]:
    try:
        data: Any = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read --models {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ValueError(f"--models {path} is not JSON: {exc}") from None
    if isinstance(data, dict):
        data = cast("dict[str, Any]", data).get("models")
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected {{'models': [...]}} or a list of models")
    return cast("list[Any]", data)


def _model(model_type: Any, data: Any, path: Path, number: int) -> Any:
    """``data`` as a ``Model``; a bad one is one line naming the file, the model and the field."""
    from pydantic import ValidationError

    try:
        return model_type.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"--models {path}: model {number}: {where}: {first['msg']}") from None


def _fail(message: str) -> int:
    sys.stderr.write(f"pi-sdk serve: error: {message}\n")
    return _EXIT_USAGE
