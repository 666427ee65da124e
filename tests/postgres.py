"""The PostgreSQL the tests run against, when one is given: ``POMMEL_TEST_DATABASE_URL``.

Locally the PostgreSQL half of the store's contract suite (and the e2e tests of several processes) runs
when that variable names a database, and is skipped, saying so, when it does not. Under CI (``CI`` set,
as ``.ci/run`` runs) it must run: no URL, or a server that does not answer, fails the test instead.
A URL that is given but does not answer fails too, locally as in CI: a typo must not pass as "not run".

Every test gets a schema of its own, named after this test session (its pid and a random part) and a
counter, dropped when the test ends: other engineers may run the suite against the same database at the
same time, and no test sees another's tables.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Generator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

URL_VARIABLE = "POMMEL_TEST_DATABASE_URL"
EXAMPLE_URL = "postgresql://127.0.0.1:5432/test"
SESSION = f"pommel_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
"""The prefix of every schema this test session makes."""

_counter = 0
_reachable: dict[str, str | None] = {}
"""URL -> None when it answered, or why it did not (asked once per session)."""


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


NOT_RUN = "the PostgreSQL half did not run"


def database_url_for_tests() -> str:
    """The URL to test against; skips the test (fails it under CI) when none is given."""
    url = os.environ.get(URL_VARIABLE, "").strip()
    if not url:
        why = f"{NOT_RUN}: set {URL_VARIABLE} (e.g. {EXAMPLE_URL}) to run it (.ci/run does)"
        if under_ci():
            pytest.fail(f"{URL_VARIABLE} is not set under CI: {why}", pytrace=False)
        pytest.skip(why)
    return url


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """The skips of the PostgreSQL half, folded into one line of the summary (a conftest imports this)."""
    outcome = yield
    report = outcome.get_result()
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and NOT_RUN in str(longrepr[2]):
        report.longrepr = (__file__, 0, longrepr[2])


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``?search_path=schema`` (asyncpg passes unknown query parameters as server settings)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "search_path"]
    query.append(("search_path", schema))
    return urlunsplit(parts._replace(query=urlencode(query)))


async def _check_reachable(url: str) -> None:
    import asyncpg

    if url not in _reachable:
        try:
            connection = await asyncpg.connect(url, timeout=10)
        except Exception as error:  # whatever it is, the suite must say so and fail
            _reachable[url] = f"{type(error).__name__}: {error}"
        else:
            await connection.close()
            _reachable[url] = None
    problem = _reachable[url]
    if problem is not None:
        pytest.fail(
            f"{URL_VARIABLE}={url} was given but the server does not answer ({problem}); a PostgreSQL test "
            "that cannot run fails rather than passing as skipped",
            pytrace=False,
        )


@asynccontextmanager
async def fresh_schema() -> AsyncIterator[str]:
    """A new, empty schema for one test; yields the URL that selects it. Dropped afterwards."""
    import asyncpg

    global _counter
    url = database_url_for_tests()
    await _check_reachable(url)
    _counter += 1
    schema = f"{SESSION}_{_counter}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield with_search_path(url, schema)
        finally:
            await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await admin.close()
