"""The official `openai` Python SDK, unmodified, against `cuecard serve` on the endpoints beside chat: moderations,
images, speech and transcriptions. Each answers from the request alone unless a route names its endpoint, and then
from that route's steps."""
import openai
import pytest

from conftest import scenario


def client(cuecard, **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0, **options)


def named(endpoint, *steps, then=("unused",)):
    """A scenario whose first route answers `endpoint` with `steps`, and a second route for everything else."""
    return {"cuecard": 1, "routes": [{"match": {"endpoint": endpoint}, "steps": list(steps)},
                                     {"steps": list(then)}]}


def test_moderation_is_not_flagged_unless_scripted_and_takes_no_chat_step(cuecard):
    cuecard.load(scenario("The chat answer."))
    sdk = client(cuecard)
    verdict = sdk.moderations.create(input=["I like kittens.", "Tell me a story."])
    assert [result.flagged for result in verdict.results] == [False, False]
    assert verdict.results[0].category_scores.violence == 0.0
    assert verdict.model == "omni-moderation-latest"
    # The chat step is still there for the chat call.
    answer = sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])
    assert answer.choices[0].message.content == "The chat answer."
    moderation, chat = cuecard.entries()
    assert moderation["request"]["metadata"]["endpoint"] == "moderations"
    assert [m["content"][0]["text"] for m in moderation["request"]["messages"]] == ["I like kittens.",
                                                                                     "Tell me a story."]
    assert (moderation["outcome"], chat["outcome"]) == ("answered", "answered")


def test_a_route_naming_moderations_flags_what_its_step_says(cuecard):
    cuecard.load(named("moderations", {"flagged": ["violence", "harassment/threatening"]},
                       {"flagged": {"hate": 0.3}}))
    sdk = client(cuecard)
    first = sdk.moderations.create(model="omni-moderation-latest", input="I will hurt you.")
    [result] = first.results
    assert result.flagged is True
    assert (result.categories.violence, result.categories.harassment_threatening, result.categories.hate) == (
        True, True, False)
    assert result.category_scores.violence == 0.99
    second = sdk.moderations.create(input=[{"type": "text", "text": "Mild."},
                                           {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}}])
    [result] = second.results
    assert (result.flagged, result.category_scores.hate) == (False, 0.3)
    assert result.category_applied_input_types.violence == ["text", "image"]
    assert result.category_applied_input_types.hate == ["text"]
    with pytest.raises(openai.UnprocessableEntityError, match="script exhausted"):
        sdk.moderations.create(input="A third one.")


def test_a_moderation_without_input_is_refused_by_name(cuecard):
    cuecard.load(scenario("unused"))
    with pytest.raises(openai.BadRequestError, match="request.input must be a string"):
        client(cuecard).moderations.create(input=[])
    [entry] = cuecard.entries()
    assert entry["outcome"] == "rejected"


def png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_images_are_pngs_of_the_asked_size_drawn_from_the_prompt(cuecard):
    import base64
    import io
    from PIL import Image

    cuecard.load(scenario("unused"))
    sdk = client(cuecard)
    first = sdk.images.generate(model="gpt-image-1", prompt="A red fox in snow", size="1536x1024", n=2)
    again = sdk.images.generate(model="gpt-image-1", prompt="A red fox in snow", size="1536x1024", n=2)
    other = sdk.images.generate(model="gpt-image-1", prompt="A blue whale", size="1536x1024")
    pictures = [base64.b64decode(item.b64_json) for item in first.data]
    assert len(pictures) == 2 and pictures[0] != pictures[1]
    assert [base64.b64decode(item.b64_json) for item in again.data] == pictures
    assert base64.b64decode(other.data[0].b64_json) != pictures[0]
    cuecard.load(scenario("unused", seed=7))  # another scenario seed draws other pictures for the same prompt
    seeded = sdk.images.generate(model="gpt-image-1", prompt="A red fox in snow", size="1536x1024", n=2)
    assert [base64.b64decode(item.b64_json) for item in seeded.data] != pictures
    with Image.open(io.BytesIO(pictures[0])) as opened:
        opened.load()  # decodes every pixel: the PNG is valid, not merely headed like one
        assert (opened.format, opened.size) == ("PNG", (1536, 1024))
    assert (first.output_format, first.size, first.usage.output_tokens) == ("png", "1536x1024", 544)
    dalle = sdk.images.generate(model="dall-e-2", prompt="A cat", size="256x256")
    assert dalle.data[0].url.startswith("data:image/png;base64,")
    assert png_size(base64.b64decode(dalle.data[0].url.split(",", 1)[1])) == (256, 256)
    assert [e["request"]["metadata"]["endpoint"] for e in cuecard.entries()] == ["images"] * 2


def test_an_image_edit_reads_the_uploaded_image_and_a_route_scripts_the_revised_prompt(cuecard):
    import base64

    cuecard.load(named("images", "A red fox.", "A fox, repainted in blue."))
    sdk = client(cuecard)
    source = base64.b64decode(sdk.images.generate(model="gpt-image-1", prompt="A fox").data[0].b64_json)
    edited = sdk.images.edit(model="gpt-image-1", image=("fox.png", source, "image/png"), prompt="Make it blue",
                             size="512x512")
    assert edited.data[0].revised_prompt == "A fox, repainted in blue."
    assert png_size(base64.b64decode(edited.data[0].b64_json)) == (512, 512)
    generated, edit = cuecard.entries()
    assert generated["outcome"] == "answered"  # the route's step answered it, not the request alone
    [prompt, upload] = edit["request"]["messages"][0]["content"]
    assert prompt == {"type": "text", "text": "Make it blue"}
    assert (upload["type"], upload["filename"], upload["media_type"]) == ("file", "fox.png", "image/png")
    assert '"image":{"bytes":' in edit["raw"]["body"].replace(" ", "")


@pytest.mark.parametrize("response_format,reader", [("wav", "WAV"), ("flac", "FLAC"), ("mp3", "MP3"),
                                                    ("opus", "OGG")])
def test_speech_is_a_valid_file_in_each_format(cuecard, response_format, reader):
    import io
    import soundfile

    cuecard.load(scenario("unused"))
    audio = client(cuecard).audio.speech.create(model="gpt-4o-mini-tts", voice="alloy", input="Hello there.",
                                                response_format=response_format).content
    info = soundfile.info(io.BytesIO(audio))
    assert info.format == reader
    assert info.duration == pytest.approx(12 * 0.02, abs=0.05)  # 20 ms per byte of "Hello there."


def test_aac_speech_is_whole_adts_frames_as_long_as_the_speech(cuecard):
    cuecard.load(scenario("unused"))
    audio = client(cuecard).audio.speech.create(model="tts-1", voice="alloy", input="Hello there.",
                                                response_format="aac").content
    frames = [audio[i:i + 11] for i in range(0, len(audio), 11)]
    assert all(frame[:2] == b"\xff\xf1" and ((frame[3] & 3) << 11 | frame[4] << 3 | frame[5] >> 5) == 11
               for frame in frames)
    assert len(frames) * 1024 / 24000 == pytest.approx(12 * 0.02, abs=0.043)  # one frame is 42.7 ms


def test_speech_then_transcription_give_back_the_words(cuecard):
    cuecard.load(scenario("unused"))
    sdk = client(cuecard)
    spoken = sdk.audio.speech.create(model="gpt-4o-mini-tts", voice="alloy", input="Book a table for two. At eight!",
                                     response_format="wav").content
    heard = sdk.audio.transcriptions.create(model="gpt-4o-transcribe", file=("order.wav", spoken, "audio/wav"))
    assert heard.text == "Book a table for two. At eight!"
    assert heard.usage.type == "tokens"
    verbose = sdk.audio.transcriptions.create(model="whisper-1", file=("order.wav", spoken),
                                              response_format="verbose_json", timestamp_granularities=["word"])
    assert [segment.text for segment in verbose.segments] == ["Book a table for two.", "At eight!"]
    assert verbose.duration == pytest.approx(0.62)
    assert (verbose.words[0].word, verbose.words[0].start, verbose.words[0].end) == ("Book", 0.0, 0.08)
    srt = sdk.audio.transcriptions.create(model="whisper-1", file=("order.wav", spoken), response_format="srt")
    assert srt.startswith("1\n00:00:00,000 --> 00:00:00,420\nBook a table for two.\n")
    streamed = sdk.audio.transcriptions.create(model="gpt-4o-transcribe", file=("order.wav", spoken), stream=True)
    events = list(streamed)
    assert "".join(e.delta for e in events if e.type == "transcript.text.delta") == "Book a table for two. At eight!"
    assert events[-1].type == "transcript.text.done"
    entry = cuecard.entries()[1]
    assert entry["request"]["metadata"]["endpoint"] == "transcriptions"
    assert entry["request"]["messages"][0]["content"][0]["text"] == "Book a table for two. At eight!"


def test_a_scripted_transcription_answers_any_audio_and_foreign_audio_needs_one(cuecard):
    cuecard.load(scenario("unused"))
    sdk = client(cuecard)
    foreign = b"RIFF" + bytes(100)
    with pytest.raises(openai.BadRequestError, match="cuecard transcribes only audio its own speech made"):
        sdk.audio.transcriptions.create(model="whisper-1", file=("call.wav", foreign))
    cuecard.load(named("transcriptions", "I would like to cancel my order.", {"fail": {"kind": "rate_limited"}}))
    heard = sdk.audio.transcriptions.create(model="whisper-1", file=("call.wav", foreign), response_format="text")
    assert heard == "I would like to cancel my order.\n"
    with pytest.raises(openai.RateLimitError):
        sdk.audio.transcriptions.create(model="whisper-1", file=("call.wav", foreign))
    translated = client(cuecard)
    cuecard.load(named("translations", "Where is the station?"))
    result = translated.audio.translations.create(model="whisper-1", file=("fr.mp3", b"ID3 not really"))
    assert result.text == "Where is the station?"
