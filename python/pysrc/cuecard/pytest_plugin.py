"""The pytest plugin (entry point `pytest11`): fixtures `cuecard_mock`, `cuecard_server`, `cuecard_openai` and
`cuecard_anthropic`, and the marker
`@pytest.mark.cuecard(scenario="file.json", strict=True)`.

`cuecard_mock` is a fresh `MockModel` per test (scripted by the marker's scenario, relative to the test file, if
given). At teardown the test fails if the script has unused steps or got unexpected requests, unless the marker
says `strict=False`."""
from __future__ import annotations

import pathlib
from typing import Iterator

import pytest

from ._cuecard import Server
from .mock import MockModel
from .verify import assert_that


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cuecard(scenario=None, strict=True): script cuecard_mock with a scenario file (relative to the test file); "
        "strict=False skips the end-of-test check that every step was used",
    )


@pytest.fixture
def cuecard_mock(request: pytest.FixtureRequest) -> Iterator[MockModel]:
    marker = request.node.get_closest_marker("cuecard")
    options = dict(marker.kwargs) if marker else {}
    scenario = options.get("scenario")
    if scenario is not None:
        path = pathlib.Path(scenario)
        if not path.is_absolute():
            path = pathlib.Path(request.node.path).parent / path
        mock = MockModel.from_scenario(path)
    else:
        mock = MockModel()
    yield mock
    if options.get("strict", True) and not _test_failed(request):
        assert_that(mock).script_fully_used()


def _test_failed(request: pytest.FixtureRequest) -> bool:
    report = getattr(request.node, "rep_call", None)
    return bool(report and report.failed)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report


@pytest.fixture
def cuecard_openai(cuecard_mock: MockModel):
    """An `openai.OpenAI` client answered in-process by `cuecard_mock` (skips the test without `openai`)."""
    pytest.importorskip("openai")
    from .transport import openai_client

    return openai_client(cuecard_mock)


@pytest.fixture
def cuecard_anthropic(cuecard_mock: MockModel):
    """An `anthropic.Anthropic` client answered in-process by `cuecard_mock` (skips the test without `anthropic`)."""
    pytest.importorskip("anthropic")
    from .transport import anthropic_client

    return anthropic_client(cuecard_mock)


@pytest.fixture
def cuecard_server(cuecard_mock: MockModel) -> Iterator[Server]:
    """A loopback server over `cuecard_mock`, with delays skipped (virtual times still recorded)."""
    with Server(cuecard_mock, instant=True) as server:
        yield server
