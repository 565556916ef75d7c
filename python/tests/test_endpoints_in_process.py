"""The endpoints beside chat, in-process (no socket): the official SDKs on `cuecard.openai_client`,
`cuecard.anthropic_client` and `cuecard.transport_for(httpx, mock)` answer speech, transcriptions, moderations,
images, token counts, message batches, Claude on Vertex and Cohere exactly as `cuecard serve` does."""
import base64

import anthropic
import cohere
import httpx
import httpx2

import cuecard


def test_speech_transcription_moderation_and_images_in_process():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [
        {"match": {"endpoint": "moderations"}, "steps": [{"flagged": ["harassment"]}]},
        {"steps": ["unused"]},
    ]})
    client = cuecard.openai_client(mock, max_retries=0)
    audio = client.audio.speech.create(model="tts-1", voice="alloy", input="Meet me at noon.",
                                       response_format="wav").content
    assert audio[:4] == b"RIFF"
    heard = client.audio.transcriptions.create(model="whisper-1", file=("noon.wav", audio))
    assert heard.text == "Meet me at noon."
    assert client.moderations.create(input="You are useless.").results[0].categories.harassment is True
    image = base64.b64decode(client.images.generate(model="gpt-image-1", prompt="A fox", size="64x32").data[0].b64_json)
    assert (int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")) == (64, 32)
    assert [e["request"]["metadata"]["endpoint"] for e in mock.entries()] == [
        "speech", "transcriptions", "moderations", "images"]


def test_anthropic_counts_batches_and_vertex_in_process():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": ["Batched.", "On Vertex."]}]})
    client = cuecard.anthropic_client(mock, max_retries=0)
    ask = [{"role": "user", "content": "Hello there"}]
    assert client.messages.count_tokens(model="claude-sonnet-4-5", messages=ask).input_tokens > 0
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": {
        "model": "claude-sonnet-4-5", "max_tokens": 16, "messages": ask}}])
    batch = client.messages.batches.retrieve(batch.id)
    [result] = list(client.messages.batches.results(batch.id))
    assert (batch.processing_status, result.result.message.content[0].text) == ("ended", "Batched.")
    vertex = anthropic.AnthropicVertex(
        region="us-east5", project_id="p", access_token="t", base_url="http://cuecard.invalid/v1",
        http_client=httpx2.Client(transport=cuecard.transport_for(httpx2, mock)))  # anthropic 2.x is on httpx2
    message = vertex.messages.create(model="claude-sonnet-4@20250514", max_tokens=16, messages=ask)
    assert message.content[0].text == "On Vertex."


def test_cohere_in_process():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": ["Bonjour.", "Salut !"]}]})
    sdk = cohere.ClientV2(api_key="k", base_url="http://cuecard.invalid",
                          httpx_client=httpx.Client(transport=cuecard.transport_for(httpx, mock)))
    ask = [{"role": "user", "content": "Say hello in French"}]
    assert sdk.chat(model="command-a-03-2025", messages=ask).message.content[0].text == "Bonjour."
    streamed = [e.delta.message.content.text for e in sdk.chat_stream(model="command-a-03-2025", messages=ask)
                if e.type == "content-delta"]
    assert "".join(streamed) == "Salut !"
