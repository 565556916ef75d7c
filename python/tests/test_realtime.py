"""Realtime sessions from Python: the binding's server serves them over ws:// and, with `tls_cert`, wss:// (the
official openai client's `client.realtime.connect()` against both), and the socket checks and journal read them."""
import asyncio
import ssl
import urllib.request

import pytest

import cuecard

openai = pytest.importorskip("openai")


def converse(base_url: str, **connection_options):
    async def run():
        client = openai.AsyncOpenAI(base_url=base_url, api_key="test-key", max_retries=0)
        async with client.realtime.connect(model="gpt-realtime", websocket_connection_options=connection_options) as c:
            await c.session.update(session={"type": "realtime", "output_modalities": ["text"]})
            await c.response.create(event_id="ask-1")
            async for event in c:
                if event.type == "response.done":
                    return event.response

    return asyncio.run(asyncio.wait_for(run(), timeout=20))


def test_a_session_over_ws_is_journaled_and_checked():
    mock = cuecard.MockModel.that_responds("Hello from the binding.")
    with cuecard.Server(mock, instant=True) as server:
        response = converse(server.openai_base_url)
    assert response.output[0].content[0].text == "Hello from the binding."
    (cuecard.assert_that(mock)
        .socket_received("response.create", {"event_id": "ask-1"})
        .socket_sent("response.done", {"response": {"status": "completed"}}, times=1)
        .socket_events_in_order(["open", "session.update", "response.create", "close"], direction="client"))
    with pytest.raises(AssertionError, match=r'socket_sent\("response.done", fields=\{"response":\{"status":"cancelled"\}\}\) failed'):
        cuecard.assert_that(mock).socket_sent("response.done", {"response": {"status": "cancelled"}})
    events = mock.socket_events()
    assert [e["type"] for e in events[:3]] == ["open", "session.created", "conversation.created"]
    assert {e["session"] for e in events} == {"ws_1"}
    assert mock.entries()[0]["request"]["metadata"]["endpoint"] == "realtime"


def test_tls_cert_serves_wss_and_https_on_the_same_port(tmp_path):
    ca = tmp_path / "ca.pem"
    mock = cuecard.MockModel.that_responds("Secure hello.").then_responds("Plain and secure.")
    with cuecard.Server(mock, instant=True, tls_cert=str(ca)) as server:
        trusted = ssl.create_default_context(cafile=str(ca))
        secure = server.openai_base_url.replace("http://", "https://")
        response = converse(secure, ssl=trusted)
        body = b'{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}'
        request = urllib.request.Request(secure + "/chat/completions", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, context=trusted, timeout=10) as reply:
            chat = reply.read().decode()
    assert response.output[0].content[0].text == "Secure hello."
    assert "Plain and secure." in chat
    assert ca.read_text().startswith("-----BEGIN CERTIFICATE-----")


def test_a_tls_cert_path_that_cannot_be_written_is_a_typed_error(tmp_path):
    mock = cuecard.MockModel.that_responds("unused")
    with pytest.raises(cuecard.CuecardIOError, match="cannot set up TLS"):
        cuecard.Server(mock, tls_cert=str(tmp_path / "missing-dir" / "ca.pem"))
