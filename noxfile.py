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
    """Mutation score of a random sample of the mutants of the core, providers and plugins.

    Usage: ``nox -s mutation -- [SIZE [SEED [PATH ...]]]`` (default 60 mutants; the seed
    defaults to today's date in UTC, ``YYYYMMDD``, so a sample is fresh unless a seed is given
    on purpose; ``all`` for every mutant, hours on two cores; PATHs limit the sample to those
    files or folders, e.g. the ones a change touched). Mutates files in place, one at a time:
    run it on a clean checkout. Each mutant runs the owner tests that execute its lines (a
    coverage map made once per commit, ``.mutation-coverage-<tree>.sqlite``). The session is
    ``.mutation-SEED-SIZE[-PATHS].sqlite``: run the same command again to resume an
    interrupted run (finished mutants are kept); delete the file to start over. Prints the
    score and every survivor's diff (docs/testing.md).
    """
    import datetime
    import os
    import shutil

    today = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d")
    args = list(session.posargs)
    size = args[0] if args else "60"
    seed = args[1] if len(args) > 1 else today
    only = args[2:]
    session.log(f"mutation sample: {size} mutants, seed {seed}, from {only or 'everywhere'}")
    # `uv` itself: under `uv run nox`, `python3` is the project's interpreter, which has no uv.
    uv = ("uv",) if shutil.which("uv") else ("python3", "-m", "uv")
    run = (*uv, "run", "--group", "mutation")
    paths = "-" + "_".join(p.strip("/").replace("/", ".") for p in only)[:60] if only else ""
    db = f".mutation-{seed}-{size}{paths}.sqlite"
    config = "scripts/mutation/config.toml"
    if not os.path.exists(db):
        # Every mutant of the tree (minutes): made once per commit, copied for each sample.
        tree = session.run("git", "rev-parse", "HEAD^{tree}", external=True, silent=True)
        every = f".mutation-init-{str(tree).strip()[:12]}.sqlite"
        if not os.path.exists(every):
            session.run(
                *run, "cosmic-ray", "init", "--force", config, f"{every}.new", external=True
            )
            os.replace(f"{every}.new", every)
        shutil.copyfile(every, f"{db}.new")
        if size != "all":
            sample = ("scripts/mutation/sample.py", f"{db}.new", "--size", size, "--seed", seed)
            session.run(
                *run, "python", *sample, *(["--only", *only] if only else []), external=True
            )
        os.replace(f"{db}.new", db)
    else:
        session.log(f"resuming {db}")
    # Which tests run each line (one suite run under coverage per commit, or an update of an
    # older commit's map by the test modules changed since): each mutant runs only the owner
    # tests that execute its lines (scripts/mutation/coverage_map.py).
    session.run(*run, "python", "scripts/mutation/coverage_map.py", "--if-missing", external=True)
    # Every cached bytecode file rewritten from the sources as they are: a mutant's cache left
    # by an interrupted or earlier session would stand in for its source (bytecode.py).
    session.run(*run, "python", "scripts/mutation/bytecode.py", external=True)
    session.run(*run, "cosmic-ray", "exec", config, db, external=True)
    session.run(*run, "python", "scripts/mutation/report.py", db, external=True)
