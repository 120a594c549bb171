"""Developer sessions: tests, lint, typecheck, docs, record (thin wrappers over the commands)."""

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "lint", "typecheck"]


@nox.session(python=["3.11", "3.12", "3.13"])
def tests(session: nox.Session) -> None:
    session.run_install("uv", "sync", "--active", external=True)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.run_install("uv", "sync", "--active", external=True)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    session.run_install("uv", "sync", "--active", external=True)
    session.run("pyright")


@nox.session
def docs(session: nox.Session) -> None:
    session.run_install("uv", "sync", "--active", "--group", "docs", external=True)
    session.run("mkdocs", "build", "--strict")


@nox.session
def record(session: nox.Session) -> None:
    """Re-record the project's cassettes with real API keys from the environment.

    Usage: ``nox -s record -- tests/test_x.py``; then the same tests re-run in playback.
    """
    session.run_install("uv", "sync", "--active", external=True)
    session.run("pytest", "--pi-record", *session.posargs)
    session.run("pytest", *session.posargs)
