//! Audio containers that need more than a header: valid files a decoder opens, written by hand because they are
//! the product (a mock's deterministic bytes) and tiny, where a codec library would add megabytes to every binding.
//!
//! - MP3: MPEG-2 Layer III frames (24 kHz, 32 kbit/s, mono) whose side information is all zero, so each decodes to
//!   24 ms of silence; as many frames as the speech lasts. Valid, not reversible.
//! - Opus: an Ogg stream (`OpusHead`, `OpusTags`, then 20 ms packets of CELT silence, `F8 FF FE`). Valid, not
//!   reversible.
//! - AAC: ADTS frames (AAC-LC, 24 kHz, mono) whose one channel element has no scale factor bands, so each decodes to
//!   1,024 samples of silence. Valid, not reversible.
//! - FLAC: one STREAMINFO block, then frames of up to 4,096 samples, each one VERBATIM subframe (the PCM16 samples as
//!   they are), with the CRC-8 and CRC-16 the format requires. Valid and lossless, so any decoder gives back the
//!   samples that [`super::audio::transcribe`] reads.

/// Samples in one MPEG-2 Layer III frame.
const MP3_FRAME_SAMPLES: f64 = 576.0;
/// One frame's bytes: `72 · 32,000 / 24,000`.
const MP3_FRAME_BYTES: usize = 96;

/// MP3 frames of silence lasting at least `seconds` (one frame at least).
pub fn mp3_silence(seconds: f64) -> Vec<u8> {
    let frames = ((seconds * 24_000.0 / MP3_FRAME_SAMPLES).ceil() as usize).max(1);
    let mut frame = [0u8; MP3_FRAME_BYTES];
    // Sync, MPEG-2, Layer III, no CRC | 32 kbit/s, 24 kHz, no padding | mono.
    frame[..4].copy_from_slice(&[0xFF, 0xF3, 0x44, 0xC0]);
    frame.repeat(frames)
}

/// An Ogg Opus stream of silence lasting at least `seconds`.
pub fn opus_silence(seconds: f64) -> Vec<u8> {
    const PRE_SKIP: u16 = 312;
    const SERIAL: u32 = 0x6375_6563; // "cuec"
    let packets = ((seconds / 0.02).ceil() as usize).max(2);
    let mut head = b"OpusHead".to_vec();
    head.extend_from_slice(&[1, 1]); // version 1, mono
    head.extend_from_slice(&PRE_SKIP.to_le_bytes());
    head.extend_from_slice(&24_000u32.to_le_bytes()); // the input's rate (informational)
    head.extend_from_slice(&[0, 0, 0]); // no output gain, channel mapping family 0
    let mut tags = b"OpusTags".to_vec();
    tags.extend_from_slice(&7u32.to_le_bytes());
    tags.extend_from_slice(b"cuecard");
    tags.extend_from_slice(&0u32.to_le_bytes()); // no user comments
    let mut out = Vec::with_capacity(packets * 4 + 200);
    ogg_page(&mut out, 0x02, 0, SERIAL, 0, &[&head]);
    ogg_page(&mut out, 0, 0, SERIAL, 1, &[&tags]);
    let silence: &[u8] = &[0xF8, 0xFF, 0xFE];
    // The last packet goes alone on the last page: libsndfile refuses a stream whose first audio page ends it.
    let mut sequence = 2;
    let mut done = 0;
    while done < packets {
        let count = if done + 1 == packets { 1 } else { (packets - 1 - done).min(255) };
        done += count;
        let granule = u64::from(PRE_SKIP) + 960 * done as u64; // 48 kHz samples decoded so far
        let flags = if done == packets { 0x04 } else { 0 };
        ogg_page(&mut out, flags, granule, SERIAL, sequence, &vec![silence; count]);
        sequence += 1;
    }
    out
}

/// One Ogg page of `packets`, each shorter than 255 bytes (one lacing value each).
fn ogg_page(out: &mut Vec<u8>, flags: u8, granule: u64, serial: u32, sequence: u32, packets: &[&[u8]]) {
    let start = out.len();
    out.extend_from_slice(b"OggS");
    out.push(0); // version
    out.push(flags);
    out.extend_from_slice(&granule.to_le_bytes());
    out.extend_from_slice(&serial.to_le_bytes());
    out.extend_from_slice(&sequence.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // the CRC, set below
    out.push(packets.len() as u8);
    out.extend(packets.iter().map(|p| p.len() as u8));
    for packet in packets {
        out.extend_from_slice(packet);
    }
    let crc = ogg_crc(out.get(start..).unwrap_or_default());
    if let Some(field) = out.get_mut(start + 22..start + 26) {
        field.copy_from_slice(&crc.to_le_bytes());
    }
}

/// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, initial 0, no final inversion).
fn ogg_crc(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |mut crc, &byte| {
        crc ^= u32::from(byte) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 { (crc << 1) ^ 0x04C1_1DB7 } else { crc << 1 };
        }
        crc
    })
}

/// ADTS frames of AAC-LC silence (24 kHz, mono) lasting at least `seconds`.
pub fn aac_silence(seconds: f64) -> Vec<u8> {
    // The header (no CRC; AAC-LC; 24 kHz; mono; an 11-byte frame; VBR fullness), then the raw data block: a
    // single channel element with global gain 0, long window, no scale factor bands, no tools, then END.
    const FRAME: [u8; 11] = [0xFF, 0xF1, 0x58, 0x40, 0x01, 0x7F, 0xFC, 0x00, 0x00, 0x00, 0x07];
    let frames = ((seconds * 24_000.0 / 1024.0).ceil() as usize).max(1);
    FRAME.repeat(frames)
}

/// The samples per FLAC frame.
const FLAC_BLOCK: usize = 4096;

/// A FLAC file holding `samples` (mono, 16 bits, `rate` Hz) verbatim.
pub fn flac(samples: &[i16], rate: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(42 + samples.len() * 2 + samples.len() / FLAC_BLOCK * 16 + 16);
    out.extend_from_slice(b"fLaC");
    out.extend_from_slice(&[0x80, 0, 0, 34]); // the last metadata block: STREAMINFO, 34 bytes
    let block = FLAC_BLOCK as u16;
    out.extend_from_slice(&block.to_be_bytes()); // the smallest block (the last may be shorter)
    out.extend_from_slice(&block.to_be_bytes()); // the largest block
    out.extend_from_slice(&[0; 6]); // frame sizes: unknown
                                    // 20 bits rate, 3 bits channels - 1 (0), 5 bits bits per sample - 1 (15), 36 bits total samples.
    let total = samples.len() as u64 & 0xF_FFFF_FFFF;
    let packed = (u64::from(rate & 0xF_FFFF) << 44) | (15u64 << 36) | total;
    out.extend_from_slice(&packed.to_be_bytes());
    out.extend_from_slice(&[0; 16]); // MD5 of the samples: zero, "not computed", which the format allows
    for (number, chunk) in samples.chunks(FLAC_BLOCK).enumerate() {
        let start = out.len();
        out.extend_from_slice(&[0xFF, 0xF8]); // sync, fixed block size
        out.push(0x70); // block size: 16 bits at the header's end | sample rate: from STREAMINFO
        out.push(0x08); // mono | 16 bits per sample
        push_utf8_number(&mut out, number as u64);
        out.extend_from_slice(&((chunk.len() - 1) as u16).to_be_bytes());
        let header_crc = crc8(out.get(start..).unwrap_or_default());
        out.push(header_crc);
        out.push(0x02); // subframe: VERBATIM, no wasted bits
        for sample in chunk {
            out.extend_from_slice(&sample.to_be_bytes());
        }
        let frame_crc = crc16(out.get(start..).unwrap_or_default());
        out.extend_from_slice(&frame_crc.to_be_bytes());
    }
    out
}

/// A frame number as FLAC writes it: UTF-8's variable-length form, extended to 36 bits.
fn push_utf8_number(out: &mut Vec<u8>, number: u64) {
    if number < 0x80 {
        out.push(number as u8);
        return;
    }
    // The continuation bytes carry 6 bits each; the first byte has `len` high bits set and the rest of the value.
    let len = (2..=7).find(|&len| number < 1u64 << (5 * len + 1)).unwrap_or(7);
    let first_marker = !(0xFFu8 >> len);
    out.push(first_marker | (number >> (6 * (len - 1))) as u8);
    for i in (0..len - 1).rev() {
        out.push(0x80 | ((number >> (6 * i)) & 0x3F) as u8);
    }
}

/// FLAC's CRC-8 (polynomial x^8 + x^2 + x + 1, initial 0) of a frame header.
fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |mut crc, &byte| {
        crc ^= byte;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 { (crc << 1) ^ 0x07 } else { crc << 1 };
        }
        crc
    })
}

/// FLAC's CRC-16 (polynomial x^16 + x^15 + x^2 + 1, initial 0) of a frame.
fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |mut crc, &byte| {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x8005 } else { crc << 1 };
        }
        crc
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mp3_is_whole_frames_of_silence_as_long_as_the_speech() {
        let file = mp3_silence(0.5);
        assert_eq!(file.len() % MP3_FRAME_BYTES, 0);
        assert_eq!(file.len() / MP3_FRAME_BYTES, 21); // 0.5 s / 24 ms, rounded up
        assert!(file
            .chunks(MP3_FRAME_BYTES)
            .all(|f| f[..4] == [0xFF, 0xF3, 0x44, 0xC0] && f[4..].iter().all(|b| *b == 0)));
        assert_eq!(mp3_silence(0.0).len(), MP3_FRAME_BYTES);
    }

    #[test]
    fn flac_frames_carry_the_samples_verbatim_with_their_checksums() {
        let samples: Vec<i16> = (0..5000).map(|i| (i * 7 % 3000) as i16 - 1500).collect();
        let file = flac(&samples, 24_000);
        assert_eq!(&file[..4], b"fLaC");
        // STREAMINFO: 24 kHz, mono, 16 bits, 5,000 samples.
        let packed = u64::from_be_bytes(file[18..26].try_into().unwrap());
        assert_eq!(
            (packed >> 44, (packed >> 41) & 7, (packed >> 36) & 31, packed & 0xF_FFFF_FFFF),
            (24_000, 0, 15, 5000)
        );
        // The first frame: its header's CRC-8, the samples big-endian, the frame's CRC-16.
        let frame = &file[42..];
        assert_eq!(&frame[..4], &[0xFF, 0xF8, 0x70, 0x08]);
        assert_eq!(frame[4], 0); // frame number 0
        assert_eq!(u16::from_be_bytes([frame[5], frame[6]]), 4095);
        assert_eq!(frame[7], crc8(&frame[..7]));
        assert_eq!(frame[8], 0x02);
        assert_eq!(i16::from_be_bytes([frame[9], frame[10]]), samples[0]);
        let first_len = 9 + 4096 * 2;
        assert_eq!(u16::from_be_bytes([frame[first_len], frame[first_len + 1]]), crc16(&frame[..first_len]));
        assert_eq!(file.len(), 42 + (first_len + 2) + (9 + 904 * 2 + 2));
    }

    #[test]
    fn opus_is_an_ogg_stream_whose_pages_carry_their_checksums() {
        let file = opus_silence(1.0);
        let mut at = 0;
        let mut pages = 0;
        let mut flags = Vec::new();
        while at < file.len() {
            assert_eq!(&file[at..at + 4], b"OggS");
            let segments = file[at + 26] as usize;
            let len = 27 + segments + file[at + 27..at + 27 + segments].iter().map(|l| *l as usize).sum::<usize>();
            let mut page = file[at..at + len].to_vec();
            let crc = u32::from_le_bytes(page[22..26].try_into().unwrap());
            page[22..26].copy_from_slice(&[0; 4]);
            assert_eq!(ogg_crc(&page), crc);
            flags.push(file[at + 5]);
            at += len;
            pages += 1;
        }
        assert_eq!(pages, 4); // head, tags, 49 packets, the last packet
        assert_eq!(flags, [0x02, 0, 0, 0x04]);
        assert_eq!(&file[28..36], b"OpusHead");
        assert_eq!(ogg_crc(b"123456789"), 0x89A1_897F); // CRC-32/MPEG-2 without its final inversion
    }

    #[test]
    fn aac_is_whole_adts_frames() {
        let file = aac_silence(0.1);
        assert_eq!(file.len(), 3 * 11); // 0.1 s at 1,024 samples of 24 kHz per frame, rounded up
        let frame = &file[..11];
        assert_eq!(u16::from_be_bytes([frame[0], frame[1]]) >> 4, 0xFFF); // sync
        let length = ((u32::from(frame[3]) & 3) << 11) | (u32::from(frame[4]) << 3) | (u32::from(frame[5]) >> 5);
        assert_eq!(length, 11);
        assert_eq!((frame[2] >> 2) & 0xF, 6); // 24 kHz
    }

    #[test]
    fn checksums_and_frame_numbers_match_the_formats_reference_values() {
        assert_eq!(crc8(b"123456789"), 0xF4); // CRC-8 (poly 0x07) check value
        assert_eq!(crc16(b"123456789"), 0xFEE8); // CRC-16/BUYPASS (poly 0x8005) check value
        let utf8 = |n: u64| {
            let mut out = Vec::new();
            push_utf8_number(&mut out, n);
            out
        };
        assert_eq!(utf8(0x7F), [0x7F]);
        assert_eq!(utf8(0x80), "\u{80}".as_bytes());
        assert_eq!(utf8(0x7FF), "\u{7FF}".as_bytes());
        assert_eq!(utf8(0xFFFF), [0xEF, 0xBF, 0xBF]);
        assert_eq!(utf8(0x10FFFF), "\u{10FFFF}".as_bytes());
    }
}
