//! Deterministic speech: text as audio and back (`../shared/spec/realtime.md` §5.2, the function the realtime APIs
//! and OpenAI's speech and transcription endpoints share).
//!
//! Each UTF-8 byte `b` of the text is one 20 ms frame of a square wave (period 8 samples: four at `+A`, four at `-A`)
//! whose amplitude is `A(b) = 64·(b+1)`, PCM16 little-endian, mono. Nothing is silent, every language makes the same
//! bytes, and the text is read back exactly from the samples (`b = A/64 - 1`), so a test can "speak" to code that
//! transcribes, and the mock can transcribe what it spoke. The containers: WAV (RIFF, PCM16) around those samples,
//! and the other formats' containers in [`encode`].

/// OpenAI's speech rate: 24 kHz.
pub const SPEECH_RATE: u32 = 24_000;

/// Samples per byte of text at `rate` (20 ms), at least one period.
fn frame_samples(rate: u32) -> usize {
    (rate as usize / 50).max(8)
}

/// The amplitude a byte is spoken with.
fn amplitude(byte: u8) -> i16 {
    64 * (i16::from(byte) + 1)
}

/// The samples of `text`: one frame per UTF-8 byte.
pub fn samples(text: &str, rate: u32) -> Vec<i16> {
    let per_frame = frame_samples(rate);
    let mut out = Vec::with_capacity(text.len() * per_frame);
    for byte in text.bytes() {
        let a = amplitude(byte);
        out.extend((0..per_frame).map(|i| if i % 8 < 4 { a } else { -a }));
    }
    out
}

/// `text` as raw PCM16 little-endian at `rate` (what `response_format: "pcm"` sends).
pub fn pcm16(text: &str, rate: u32) -> Vec<u8> {
    samples(text, rate).iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// The text a PCM16 little-endian body at `rate` speaks, when [`pcm16`] made it; `None` for any other audio.
pub fn text_of_pcm16(pcm: &[u8], rate: u32) -> Option<String> {
    let per_frame = frame_samples(rate);
    if pcm.is_empty() || !pcm.len().is_multiple_of(2 * per_frame) {
        return None;
    }
    let mut bytes = Vec::with_capacity(pcm.len() / (2 * per_frame));
    for frame in pcm.chunks_exact(2 * per_frame) {
        let first = i16::from_le_bytes([*frame.first()?, *frame.get(1)?]);
        if first <= 0 || first % 64 != 0 || first / 64 > 256 {
            return None;
        }
        let byte = u8::try_from(first / 64 - 1).ok()?;
        let expected = samples_of_byte(byte, per_frame);
        let got = frame.chunks_exact(2).map(|pair| pair.try_into().map_or(0, i16::from_le_bytes));
        if got.zip(expected).any(|(got, want)| got != want) {
            return None;
        }
        bytes.push(byte);
    }
    String::from_utf8(bytes).ok()
}

fn samples_of_byte(byte: u8, per_frame: usize) -> impl Iterator<Item = i16> {
    let a = amplitude(byte);
    (0..per_frame).map(move |i| if i % 8 < 4 { a } else { -a })
}

/// A WAV file (RIFF, PCM, 16 bits, mono) around PCM16 samples.
pub fn wav(pcm: &[u8], rate: u32) -> Vec<u8> {
    let data_len = u32::try_from(pcm.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(44 + pcm.len());
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // the fmt chunk's size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes()); // bytes per second
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    out.extend_from_slice(pcm);
    out
}

/// The rate and PCM16 samples of a WAV file (PCM, 16 bits, mono), skipping chunks other than `fmt ` and `data`.
pub fn pcm_of_wav(file: &[u8]) -> Option<(u32, &[u8])> {
    if file.get(..4)? != b"RIFF" || file.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12;
    let mut rate = None;
    while let Some(header) = file.get(at..at + 8) {
        let size = u32::from_le_bytes(header.get(4..8)?.try_into().ok()?) as usize;
        let body = file.get(at + 8..(at + 8 + size).min(file.len()))?;
        match header.get(..4)? {
            b"fmt " => {
                let format = u16::from_le_bytes(body.get(..2)?.try_into().ok()?);
                let channels = u16::from_le_bytes(body.get(2..4)?.try_into().ok()?);
                let bits = u16::from_le_bytes(body.get(14..16)?.try_into().ok()?);
                if (format, channels, bits) != (1, 1, 16) {
                    return None;
                }
                rate = Some(u32::from_le_bytes(body.get(4..8)?.try_into().ok()?));
            }
            b"data" => return Some((rate?, body)),
            _ => {}
        }
        at += 8 + size + size % 2; // chunks are padded to an even size
    }
    None
}

/// The text an audio file speaks, when cuecard made it: a WAV of [`pcm16`] samples, or raw PCM16 at 24 kHz.
pub fn transcribe(file: &[u8]) -> Option<String> {
    match pcm_of_wav(file) {
        Some((rate, pcm)) => text_of_pcm16(pcm, rate),
        None => text_of_pcm16(file, SPEECH_RATE),
    }
}

/// How long `text` speaks, in seconds.
pub fn duration_seconds(text: &str) -> f64 {
    text.len() as f64 * 0.02
}

/// The formats speech is sent in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AudioFormat {
    /// WAV around the PCM16 samples: reversible.
    Wav,
    /// The PCM16 samples alone (24 kHz): reversible.
    Pcm,
    /// MPEG-1 Layer III frames of silence as long as the speech: a valid MP3, not reversible.
    Mp3,
    /// FLAC with the PCM16 samples stored verbatim: a valid, lossless FLAC, reversible by any decoder.
    Flac,
    /// Ogg Opus packets of silence as long as the speech: valid, not reversible.
    Opus,
    /// ADTS AAC-LC frames of silence as long as the speech: valid, not reversible.
    Aac,
}

impl AudioFormat {
    /// The format OpenAI names `name` (`mp3`, `wav`, ...), or `None`.
    pub fn named(name: &str) -> Option<AudioFormat> {
        match name {
            "wav" => Some(AudioFormat::Wav),
            "pcm" => Some(AudioFormat::Pcm),
            "mp3" => Some(AudioFormat::Mp3),
            "flac" => Some(AudioFormat::Flac),
            "opus" => Some(AudioFormat::Opus),
            "aac" => Some(AudioFormat::Aac),
            _ => None,
        }
    }

    /// The content type the reply carries.
    pub fn content_type(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Pcm => "audio/pcm",
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Flac => "audio/flac",
            AudioFormat::Opus => "audio/ogg",
            AudioFormat::Aac => "audio/aac",
        }
    }
}

/// `text` spoken in `format`.
pub fn encode(text: &str, format: AudioFormat) -> Vec<u8> {
    match format {
        AudioFormat::Wav => wav(&pcm16(text, SPEECH_RATE), SPEECH_RATE),
        AudioFormat::Pcm => pcm16(text, SPEECH_RATE),
        AudioFormat::Mp3 => super::containers::mp3_silence(duration_seconds(text)),
        AudioFormat::Flac => super::containers::flac(&samples(text, SPEECH_RATE), SPEECH_RATE),
        AudioFormat::Opus => super::containers::opus_silence(duration_seconds(text)),
        AudioFormat::Aac => super::containers::aac_silence(duration_seconds(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speech_is_read_back_exactly_from_pcm_and_wav() {
        for text in ["Hello, world!", "héllo ✓", "a"] {
            let pcm = pcm16(text, SPEECH_RATE);
            assert_eq!(pcm.len(), text.len() * 480 * 2);
            assert_eq!(text_of_pcm16(&pcm, SPEECH_RATE).as_deref(), Some(text));
            assert_eq!(transcribe(&encode(text, AudioFormat::Wav)).as_deref(), Some(text));
            assert_eq!(transcribe(&pcm).as_deref(), Some(text));
        }
        let at_16k = wav(&pcm16("sixteen", 16_000), 16_000);
        assert_eq!(transcribe(&at_16k).as_deref(), Some("sixteen"));
    }

    #[test]
    fn other_audio_is_not_mistaken_for_speech() {
        assert_eq!(transcribe(&[]), None);
        assert_eq!(transcribe(&[0u8; 960]), None); // silence
        let mut pcm = pcm16("hi", SPEECH_RATE);
        pcm[10] ^= 1; // one sample off
        assert_eq!(text_of_pcm16(&pcm, SPEECH_RATE), None);
        assert_eq!(transcribe(b"RIFF\0\0\0\0WAVEjunk"), None);
    }

    #[test]
    fn the_wav_header_is_the_canonical_44_bytes() {
        let file = encode("ok", AudioFormat::Wav);
        assert_eq!(&file[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(file[4..8].try_into().unwrap()) as usize, file.len() - 8);
        assert_eq!(&file[36..40], b"data");
        assert_eq!(u32::from_le_bytes(file[24..28].try_into().unwrap()), SPEECH_RATE);
        assert_eq!(file.len(), 44 + 2 * 480 * 2);
    }
}
