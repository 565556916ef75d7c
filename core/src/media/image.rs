//! Deterministic images: a valid PNG of the requested size, drawn from a seed (the prompt's digest, the scenario's
//! seed and the image's index), so the same request gives the same bytes in every language.
//!
//! The picture is a 4×4 grid of tiles in four colours (a 2-bit palette, drawn from the seed), which keeps a
//! 1024×1024 image at 256 KB without a compressor: the pixel rows go into zlib "stored" blocks, which every PNG
//! decoder reads. The checksums are the ones PNG and zlib require (CRC-32 per chunk, Adler-32 of the pixels).

use crate::seeded::Seeded;

/// The largest side cuecard draws (OpenAI's largest is 1792; a test asking more gets this refusal, not a 50 MB body).
pub const MAX_SIDE: u32 = 4096;

/// A `width`×`height` PNG drawn from `seed`.
pub fn png(width: u32, height: u32, seed: u64) -> Vec<u8> {
    let mut draw = Seeded::new(seed);
    let palette: Vec<u8> = (0..12).map(|_| draw.below(256) as u8).collect();
    let tiles: Vec<u8> = (0..16).map(|_| draw.below(4) as u8).collect();
    let row_bytes = (width as usize).div_ceil(4); // four 2-bit pixels per byte
    let mut raw = Vec::with_capacity((row_bytes + 1) * height as usize);
    for y in 0..height {
        raw.push(0); // filter: none
        let tile_row = (y as usize * 4 / height.max(1) as usize).min(3);
        let start = raw.len();
        raw.resize(start + row_bytes, 0);
        for x in 0..width as usize {
            let tile_column = (x * 4 / width.max(1) as usize).min(3);
            let colour = tiles.get(tile_row * 4 + tile_column).copied().unwrap_or(0);
            if let Some(byte) = raw.get_mut(start + x / 4) {
                *byte |= colour << (6 - 2 * (x % 4));
            }
        }
    }
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 65_535 * 5 + 128);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[2, 3, 0, 0, 0]); // 2 bits, palette colour, deflate, no filter method, no interlace
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"PLTE", &palette);
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The width and height a PNG declares, or `None` for bytes that are not a PNG.
pub fn png_size(file: &[u8]) -> Option<(u32, u32)> {
    if file.get(..8)? != b"\x89PNG\r\n\x1a\n" || file.get(12..16)? != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(file.get(16..20)?.try_into().ok()?);
    let height = u32::from_be_bytes(file.get(20..24)?.try_into().ok()?);
    Some((width, height))
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crate::media::crc32(out.get(start..).unwrap_or_default());
    out.extend_from_slice(&crc.to_be_bytes());
}

/// `data` as a zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65_535 * 5 + 11);
    out.extend_from_slice(&[0x78, 0x01]); // deflate, 32 KB window, no dictionary; (0x7801 % 31 == 0)
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]); // one empty final block
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none())); // BFINAL on the last; BTYPE 00: stored
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        // 5,552 bytes is the most that cannot overflow `b` before the modulo (zlib's NMAX).
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_has_its_size_its_chunks_and_their_checksums() {
        let file = png(1024, 768, 7);
        assert_eq!(png_size(&file), Some((1024, 768)));
        // Walk the chunks, checking each CRC.
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < file.len() {
            let len = u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
            let kind = &file[at + 4..at + 8];
            let crc = u32::from_be_bytes(file[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crate::media::crc32(&file[at + 4..at + 8 + len]));
            kinds.push(String::from_utf8(kind.to_vec()).unwrap());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "PLTE", "IDAT", "IEND"]);
        // 2 bits per pixel: a row is 256 bytes and its filter byte.
        assert!(file.len() > 768 * 257 && file.len() < 768 * 257 + 1024);
    }

    #[test]
    fn the_same_seed_draws_the_same_image_and_another_seed_another() {
        assert_eq!(png(64, 64, 1), png(64, 64, 1));
        assert_ne!(png(64, 64, 1), png(64, 64, 2));
        assert_eq!(png_size(&png(1, 1, 0)), Some((1, 1)));
        assert_eq!(png_size(b"GIF89a"), None);
    }

    #[test]
    fn adler32_matches_its_reference_value() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(&[]), 1);
        let big = vec![0xFFu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &byte in &big {
            a = (a + u64::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        assert_eq!(adler32(&big), ((b << 16) | a) as u32);
    }
}
