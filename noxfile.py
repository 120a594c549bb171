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


@nox.session(venv_backend="none")
def mutation(session: nox.Session) -> None:
    """Mutation score of a random sample of the core's and the adapters' mutants (cosmic-ray).

    Usage: ``nox -s mutation -- [SIZE [SEED]]`` (default 60 mutants, seed 20261201; ``all``
    for every mutant, hours on two cores). Mutates files in place, one at a time: run it on a
    clean checkout. Prints the score and every survivor's diff (docs/testing.md).
    """
    size, seed = (list(session.posargs) + ["60", "20261201"])[:2]
    run = ("python3", "-m", "uv", "run", "--group", "mutation")
    db = ".mutation.sqlite"
    session.run(
        *run, "cosmic-ray", "init", "--force", "scripts/mutation/config.toml", db, external=True
    )
    if size != "all":
        session.run(
            *run,
            "python",
            "scripts/mutation/sample.py",
            db,
            "--size",
            size,
            "--seed",
            seed,
            external=True,
        )
    session.run(*run, "cosmic-ray", "exec", "scripts/mutation/config.toml", db, external=True)
    session.run(*run, "python", "scripts/mutation/report.py", db, external=True)
