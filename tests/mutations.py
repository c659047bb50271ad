"""Named mutations of the engine, to show that the tests marked for each one can fail (tests/test_mutations.py).

`pytest --mutate NAME` (conftest loads this plugin) switches one safeguard off in this process before any test runs, and keeps
only the tests marked `@pytest.mark.kills("NAME")`; at least one of them must then fail. Each switch replaces
what the engine looks up when it runs (a module global, a method, or a function's code where other modules
hold the function by name), so every caller in the process gets the mutant."""

from __future__ import annotations

import json
import subprocess


def _tables_off() -> None:
    from codeproof.site import tables

    tables._TableCells.run = lambda self, root: None


def _guard_off() -> None:
    from codeproof.site import guard

    def passes_everything(html, post, source_lines, first_line, proved_cards, seal, accounted):
        return []

    guard.check_page.__code__ = passes_everything.__code__  # callers hold check_page by name


def _tolerance_off() -> None:
    from codeproof.experiments import compare

    compare._reconcile_line = lambda index, want, got, tolerance, out: got  # numbers compared exactly


def _sandbox_off() -> None:
    from codeproof.experiments import runner, sandbox

    # "bwrap" runs the script as it is, and so does the probe of bwrap (sandbox.bwrap_works): it passes anywhere.
    # The run's folder is then where the build made it, its work folder alone is counted, and it runs as the build.
    runner.bwrap_command = sandbox.bwrap_command = lambda given, hidden=(), readable=(), tmp_bytes=0, writable=(): []
    runner.ExperimentRunner._inside = lambda self, run_dir: str(run_dir)
    runner.COUNTED, runner.NOBODY = (), 0


def _matrix_lock_off() -> None:
    from codeproof.experiments import matrix

    matrix._hold_to_record = lambda environment, pins, wrong: None  # any pin with a hash passes, as before issue 50


def _matrix_on_host() -> None:
    from codeproof.experiments import matrix

    # What an environment holds asked of its own interpreter, with its site-packages (and their .pth), on the host.
    def ask(environment, base, packages):
        done = subprocess.run([str(packages.parents[2] / "bin" / "python"), "-I", "-c", matrix.ASK, str(packages)],
                              capture_output=True, text=True, timeout=60)
        return json.loads(done.stdout)

    matrix._ask = ask


SWITCHES = {"tables": _tables_off, "guard": _guard_off, "tolerance": _tolerance_off, "sandbox": _sandbox_off,
            "matrix_lock": _matrix_lock_off, "matrix_host": _matrix_on_host}


def pytest_addoption(parser):
    parser.addoption("--mutate", choices=sorted(SWITCHES), help="switch this safeguard off; run only the tests that must catch it")


def pytest_configure(config):
    name = config.getoption("--mutate")
    if name:
        SWITCHES[name]()


def pytest_collection_modifyitems(config, items):
    name = config.getoption("--mutate")
    if not name:
        return
    kept, dropped = [], []
    for item in items:
        names = {arg for mark in item.iter_markers("kills") for arg in mark.args}
        (kept if name in names else dropped).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=dropped)
