"""Under CI=true a skipped test is a failure: a machine that lacks bubblewrap, chromium or a second CPU fails
loudly instead of passing with fewer checks. CI is read when pytest starts (conftest's autouse `local_build`
removes it from each test's environment); a test may still set it for itself."""

from __future__ import annotations

import pytest

from codeproof.series.config import in_ci

CI_RUN = in_ci()


def _reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if CI_RUN and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where every check must run: {_reason(report)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if CI_RUN and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where every check must run: {_reason(report)}"
