"""The pytest plugin (entry point `pytest11`): fixtures `cuecard_mock`, `cuecard_server`, `cuecard_openai`,
`cuecard_anthropic`, `cuecard_recording` and `cuecard_shared` (one `cuecard serve` per run, each test on its own
`/t/{id}/` prefix, also under pytest-xdist: see `cuecard.shared`), the marker
`@pytest.mark.cuecard(scenario="file.json", strict=True, recording=None, upstream=None, ...)` and the option
`--cuecard-record=none|once|new|all`.

`cuecard_mock` is a fresh `MockModel` per test (scripted by the marker's scenario, relative to the test file, if
given). At teardown the test fails if the script has unused steps or got unexpected requests, unless the marker
says `strict=False`.

`cuecard_recording` is a `Recording` per test, in `recordings/<module>/<test>.yaml` beside the test file (the
marker's `recording=` names another file), in the mode `--cuecard-record` gives (else `CUECARD_RECORD`, else
`none`: replay only, never live). Pass it to the SDK helpers (`cuecard.openai_client(cuecard_recording)`). At
teardown of a replaying test, a recorded exchange the test did not use fails it, as an unused step does; an
exchange that could not be recorded fails it too. The marker's `upstream`, `redact`, `redact_fields` and
`allow_in_ci` go to the recording."""
from __future__ import annotations

import os
import pathlib
from typing import Iterator

import pytest

from . import shared
from ._cuecard import Server, recording_path_for_test
from .mock import MockModel
from .recording import Recording
from .verify import assert_that

RECORD_MODES = ("none", "once", "new", "all")
# Settings a marker may give a recording (core's RecordingSettings, less the mode, which is the run's).
_RECORDING_SETTINGS = ("upstream", "redact", "redact_fields", "allow_in_ci", "description")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("cuecard").addoption(
        "--cuecard-record", choices=RECORD_MODES, default=None,
        help="record mode of cuecard_recording: none (replay only; the default, or $CUECARD_RECORD), once (record "
             "missing files), new (record what files lack), all (record anew)",
    )
    parser.getgroup("cuecard").addoption(
        "--cuecard-url", default=None,
        help="the cuecard server cuecard_shared uses (else $CUECARD_URL, else one this run starts)",
    )
    parser.getgroup("cuecard").addoption(
        "--cuecard-serve", action="store_true", default=False,
        help="under pytest-xdist: start one cuecard serve for the whole run and share it with every worker "
             "(without it, each worker that uses cuecard_shared starts its own)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cuecard(scenario=None, strict=True, recording=None, upstream=None, redact=None, redact_fields=None, "
        "allow_in_ci=False): script cuecard_mock with a scenario file (relative to the test file); strict=False "
        "skips the end-of-test check that every step (or recorded exchange) was used; recording= names the "
        "recording file of cuecard_recording",
    )


def _marker_options(request: pytest.FixtureRequest) -> dict:
    marker = request.node.get_closest_marker("cuecard")
    return dict(marker.kwargs) if marker else {}


def _beside_test(request: pytest.FixtureRequest, name: str) -> pathlib.Path:
    """A path a marker names, relative to the test file unless absolute."""
    path = pathlib.Path(name)
    return path if path.is_absolute() else pathlib.Path(request.node.path).parent / path


@pytest.fixture
def cuecard_mock(request: pytest.FixtureRequest) -> Iterator[MockModel]:
    options = _marker_options(request)
    scenario = options.get("scenario")
    if scenario is not None:
        mock = MockModel.from_scenario(_beside_test(request, scenario))
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


def _record_mode(config: pytest.Config) -> str:
    mode = config.getoption("--cuecard-record") or os.environ.get("CUECARD_RECORD") or "none"
    if mode not in RECORD_MODES:
        raise pytest.UsageError(f"CUECARD_RECORD={mode!r} is not a record mode (one of {', '.join(RECORD_MODES)})")
    return mode


def recording_path(node: pytest.Item) -> pathlib.Path:
    """`recordings/<module>/<Class.>test_name[param].yaml` beside the test file (core's rule: characters a file
    name cannot hold become `-`)."""
    test_file = pathlib.Path(node.path)
    return test_file.parent / recording_path_for_test(test_file.stem, node.nodeid.split("::")[1:])


@pytest.fixture
def cuecard_recording(request: pytest.FixtureRequest) -> Iterator[Recording]:
    """A `Recording` for this test (see the module's text)."""
    options = _marker_options(request)
    named = options.get("recording")
    path = recording_path(request.node) if named is None else _beside_test(request, named)
    settings = {key: options[key] for key in _RECORDING_SETTINGS if options.get(key) is not None}
    recording = Recording(path, _record_mode(request.config), **settings)
    yield recording
    if _test_failed(request):
        return
    if recording.failures:
        pytest.fail("cuecard: " + "; ".join(recording.failures), pytrace=False)
    if recording.replays and not recording.records and options.get("strict", True):
        assert_that(recording.mock).script_fully_used()


def _shared_url(config: pytest.Config) -> str:
    """The shared server's URL: given, handed to this xdist worker, or started by this process."""
    given = config.getoption("--cuecard-url") or os.environ.get("CUECARD_URL")
    if given:
        return given.rstrip("/")
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None and "cuecard_url" in worker_input:
        return worker_input["cuecard_url"]
    return shared.start_server()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """pytest-xdist, on the controller, for each worker: one server for the whole run, its URL handed down."""
    given = node.config.getoption("--cuecard-url") or os.environ.get("CUECARD_URL")
    if node.config.getoption("--cuecard-serve") and not given:
        node.workerinput["cuecard_url"] = shared.start_server()


def pytest_unconfigure(config: pytest.Config) -> None:
    shared.stop_server()


@pytest.fixture
def cuecard_shared(request: pytest.FixtureRequest) -> Iterator[shared.SharedTest]:
    """This test's own mock on the run's shared `cuecard serve`: `base_url` (`openai_url`, `anthropic_url`),
    `load(scenario)`, `journal()`, `check(...)`. After a passing test, core checks on the server that every step it
    loaded was used and no request was unexpected (only the latter when it loaded none; the marker's `strict=False`
    skips both); then the test is dropped from the server."""
    test = shared.SharedTest(_shared_url(request.config), shared.test_id(request.node.nodeid))
    yield test
    try:
        if _marker_options(request).get("strict", True) and not _test_failed(request):
            # The server's own scenario may hold steps a test never meant to use: those are not checked.
            test.check({"check": "script_fully_used" if test.loaded else "no_unexpected_requests"})
    finally:
        test.drop()
