//! Deterministic media: speech as audio and back (`audio`), the containers of the audio formats (`containers`), and
//! images (`image`). Pure functions of their input and a seed, so every language makes the same bytes; the wire's
//! speech, transcription and image endpoints and the realtime APIs answer with them.

pub mod audio;
mod containers;
pub mod image;

/// CRC-32 (IEEE 802.3, zlib's): PNG's chunks and the AWS event stream's messages use it.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// CRC-32 one byte at a time from a 1 KB table made at compile time: the WASM module keeps its size budget (crc32fast's
/// portable path carries sixteen such tables), and the in-process streams it frames are short. A native test checks
/// it against crc32fast.
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn crc32_small(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut crc = i as u32;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &byte in bytes {
        // The index is the low byte, so always within the table.
        crc = (crc >> 8) ^ TABLE[usize::from((crc as u8) ^ byte)];
    }
    !crc
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    crc32_small(bytes)
}
