//! Audio on the realtime sockets: the formats the sessions speak, the deterministic voice in each
//! (`crate::media::audio`, realtime spec §5.2), and the deterministic voice activity detection of appended audio.

use base64::Engine;

/// An audio format of a session: PCM16 at a rate, or G.711 (8 kHz, one byte a sample).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Pcm16(u32),
    MuLaw,
    ALaw,
}

impl Format {
    /// OpenAI's GA format object (`{"type": "audio/pcm", "rate": 24000}`) or beta name (`pcm16`).
    pub(super) fn of_openai(format: Option<&serde_json::Value>) -> Format {
        let name = match format {
            Some(serde_json::Value::String(name)) => name.as_str(),
            Some(object) => object.get("type").and_then(|t| t.as_str()).unwrap_or("audio/pcm"),
            None => "audio/pcm",
        };
        match name {
            "audio/pcmu" | "g711_ulaw" => Format::MuLaw,
            "audio/pcma" | "g711_alaw" => Format::ALaw,
            _ => Format::Pcm16(24_000),
        }
    }

    /// Samples a second.
    fn rate(self) -> u32 {
        match self {
            Format::Pcm16(rate) => rate,
            Format::MuLaw | Format::ALaw => 8_000,
        }
    }

    /// Bytes a sample.
    fn width(self) -> usize {
        match self {
            Format::Pcm16(_) => 2,
            Format::MuLaw | Format::ALaw => 1,
        }
    }

    /// Milliseconds of audio in `bytes` bytes.
    pub(super) fn ms(self, bytes: usize) -> u64 {
        (bytes as u64 / self.width() as u64) * 1000 / u64::from(self.rate().max(1))
    }

    /// Bytes of one 20 ms frame (one byte of spoken text).
    fn frame_bytes(self) -> usize {
        (self.rate() as usize / 50).max(8) * self.width()
    }

    /// `text` spoken in the deterministic voice, in this format.
    pub(super) fn speak(self, text: &str) -> Vec<u8> {
        match self {
            Format::Pcm16(rate) => crate::media::audio::pcm16(text, rate),
            Format::MuLaw => crate::media::audio::samples(text, 8_000).into_iter().map(mu_law).collect(),
            Format::ALaw => crate::media::audio::samples(text, 8_000).into_iter().map(a_law).collect(),
        }
    }

    /// The text `audio` speaks when the deterministic voice made it (PCM16 only: G.711 loses the exact samples).
    pub(super) fn text_of(self, audio: &[u8]) -> Option<String> {
        match self {
            Format::Pcm16(rate) => crate::media::audio::text_of_pcm16(audio, rate),
            Format::MuLaw | Format::ALaw => None,
        }
    }

    /// The loudest sample of a frame.
    fn peak(self, frame: &[u8]) -> u16 {
        match self {
            Format::Pcm16(_) => frame
                .chunks_exact(2)
                .map(|pair| i16::from_le_bytes([pair.first().copied().unwrap_or(0), pair.get(1).copied().unwrap_or(0)]))
                .map(i16::unsigned_abs)
                .max()
                .unwrap_or(0),
            // G.711's silence codes are 0xFF/0x7F (µ-law) and 0xD5/0x55 (A-law); any other byte is sound.
            Format::MuLaw => loud(frame.iter().any(|b| !matches!(b, 0xFF | 0x7F))),
            Format::ALaw => loud(frame.iter().any(|b| !matches!(b, 0xD5 | 0x55))),
        }
    }
}

/// The peak of a G.711 frame: full scale when it holds any sound.
fn loud(sound: bool) -> u16 {
    if sound {
        u16::MAX
    } else {
        0
    }
}

/// ITU-T G.711 µ-law of a linear sample.
fn mu_law(sample: i16) -> u8 {
    let mut value = i32::from(sample);
    let sign = if value < 0 {
        value = -value;
        0x80
    } else {
        0
    };
    value = value.min(32_635) + 0x84;
    let top = (value >> 7) as u32;
    let exponent = if top == 0 { 0 } else { (31 - top.leading_zeros()).min(7) };
    let mantissa = (value >> (exponent + 3)) & 0x0F;
    !(sign | (exponent << 4) as u8 | mantissa as u8)
}

/// ITU-T G.711 A-law of a linear sample.
fn a_law(sample: i16) -> u8 {
    let mut value = i32::from(sample) >> 3;
    let mask = if value >= 0 {
        0xD5
    } else {
        value = -value - 1;
        0x55
    };
    // The segment: how many times the 13-bit magnitude doubles past 31.
    let segment = (0u32..8).find(|s| value <= (0x1F << s) | ((1 << s) - 1)).unwrap_or(8);
    if segment >= 8 {
        return 0x7F ^ mask;
    }
    let shift = if segment < 2 { 1 } else { segment };
    let encoded = ((segment << 4) as i32 | ((value >> shift) & 0x0F)) as u8;
    encoded ^ mask
}

/// Standard base64 (padded), as every realtime API sends audio.
pub(super) fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The bytes of base64 audio, or `None`.
pub(super) fn from_base64(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text.as_bytes()).ok()
}

/// The server VAD's settings (OpenAI's `turn_detection`; Gemini's `automaticActivityDetection`).
#[derive(Clone, Copy, Debug)]
pub(super) struct VadSettings {
    /// 0..1: a frame is speech when its peak exceeds `threshold · 32767 / 256`. The deterministic voice speaks
    /// softly (amplitude `64·(b+1)`), so the scale puts the default 0.5 just under its quietest byte: every frame it
    /// speaks is speech, digital silence never is.
    pub threshold: f64,
    pub prefix_padding_ms: u64,
    pub silence_duration_ms: u64,
}

/// What the VAD saw in newly appended audio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Activity {
    /// Speech began at this offset (ms from the start of the buffer, padding included).
    Started { at_ms: u64 },
    /// Speech ended: the turn is the buffer up to `end_byte`; `at_ms` is when the silence had lasted long enough.
    Stopped { at_ms: u64, end_byte: usize },
}

/// The VAD of one input buffer: a pure function of its bytes, fed as they are appended.
#[derive(Clone, Debug, Default)]
pub(super) struct Vad {
    /// Bytes of the buffer already judged (whole frames).
    judged: usize,
    /// The first speech frame's start, while speech goes on.
    speech_from: Option<usize>,
    /// The end of the last speech frame.
    speech_to: usize,
}

impl Vad {
    /// Judges the whole frames of `buffer` not judged yet: what began or ended in them.
    pub(super) fn feed(&mut self, buffer: &[u8], format: Format, settings: VadSettings) -> Vec<Activity> {
        let frame = format.frame_bytes();
        let limit = (settings.threshold.clamp(0.0, 1.0) * 32767.0 / 256.0) as u16;
        let mut seen = Vec::new();
        while self.judged + frame <= buffer.len() {
            let Some(bytes) = buffer.get(self.judged..self.judged + frame) else { break };
            let speech = format.peak(bytes) > limit;
            let end = self.judged + frame;
            if speech {
                if self.speech_from.is_none() {
                    self.speech_from = Some(self.judged);
                    let at_ms = format.ms(self.judged).saturating_sub(settings.prefix_padding_ms);
                    seen.push(Activity::Started { at_ms });
                }
                self.speech_to = end;
            } else if self.speech_from.is_some() && format.ms(end - self.speech_to) >= settings.silence_duration_ms {
                self.speech_from = None;
                seen.push(Activity::Stopped { at_ms: format.ms(end), end_byte: end });
            }
            self.judged = end;
        }
        seen
    }

    /// The speech of `buffer` (its first speech frame to its last), to read the text back from.
    pub(super) fn speech<'a>(&self, buffer: &'a [u8], format: Format, settings: VadSettings) -> &'a [u8] {
        let frame = format.frame_bytes();
        let limit = (settings.threshold.clamp(0.0, 1.0) * 32767.0 / 256.0) as u16;
        let frames: Vec<(usize, bool)> = buffer
            .chunks(frame)
            .enumerate()
            .map(|(i, bytes)| (i * frame, bytes.len() == frame && format.peak(bytes) > limit))
            .collect();
        let first = frames.iter().find(|(_, speech)| *speech).map(|(at, _)| *at);
        let last = frames.iter().rev().find(|(_, speech)| *speech).map(|(at, _)| *at + frame);
        match (first, last) {
            (Some(first), Some(last)) => buffer.get(first..last).unwrap_or_default(),
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g711_encodes_silence_and_extremes_as_the_standard_does() {
        assert_eq!(mu_law(0), 0xFF);
        assert_eq!(mu_law(-1), 0x7F);
        assert_eq!(mu_law(i16::MAX), 0x80);
        assert_eq!(a_law(0), 0xD5);
        assert_eq!(a_law(-1), 0x55);
    }

    #[test]
    fn the_vad_finds_spoken_text_between_silences_and_reads_it_back() {
        let format = Format::Pcm16(24_000);
        let settings = VadSettings { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 };
        let mut buffer = vec![0u8; 960 * 25]; // 500 ms of silence
        buffer.extend(format.speak("hi there"));
        buffer.extend(vec![0u8; 960 * 10]); // 200 ms
        let mut vad = Vad::default();
        let seen = vad.feed(&buffer, format, settings);
        assert_eq!(
            seen,
            vec![Activity::Started { at_ms: 200 }, Activity::Stopped { at_ms: 860, end_byte: buffer.len() }]
        );
        assert_eq!(format.text_of(vad.speech(&buffer, format, settings)).as_deref(), Some("hi there"));
        let mut silent = Vad::default();
        assert!(silent.feed(&[0u8; 960 * 50], format, settings).is_empty());
    }
}
