//! An inline image's width and height, read from its header (PNG, JPEG, GIF, WebP), for Anthropic's limit on
//! image sides (rule A15). Only the start of the base64 data is decoded: the header is near the start.

use base64::Engine;

/// How much base64 text is decoded at most (192 KiB of image: a JPEG's frame header can follow large EXIF data).
const PREFIX_CHARS: usize = 262_144;

/// `(width, height)` of a base64-encoded image, when its format is known and its header is whole.
pub(super) fn dimensions(data: &str) -> Option<(u32, u32)> {
    let text = data.get(..data.len().min(PREFIX_CHARS) / 4 * 4)?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(text).ok()?;
    let at = |range: std::ops::Range<usize>| bytes.get(range);
    let be16 = |i: usize| at(i..i + 2).map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])));
    let le16 = |i: usize| at(i..i + 2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])));
    let be32 = |i: usize| at(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let le24 = |i: usize| at(i..i + 3).map(|b| u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16);
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some((be32(16)?, be32(20)?));
    }
    if bytes.starts_with(b"GIF8") {
        return Some((le16(6)?, le16(8)?));
    }
    if bytes.starts_with(b"RIFF") && at(8..12) == Some(b"WEBP".as_slice()) {
        return match at(12..16)? {
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(at(21..25)?.try_into().ok()?);
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            _ => None,
        };
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // Segments after the start of image: a start-of-frame marker (C0-CF but C4, C8, CC) holds the size.
        let mut i = 2;
        while let (Some(&0xff), Some(&marker)) = (bytes.get(i), bytes.get(i + 1)) {
            let length = be16(i + 2)? as usize;
            if (0xc0..=0xcf).contains(&marker) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                return Some((be16(i + 7)?, be16(i + 5)?));
            }
            i += 2 + length;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn each_format_gives_its_width_and_height() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&9000u32.to_be_bytes());
        png.extend_from_slice(&300u32.to_be_bytes());
        assert_eq!(dimensions(&b64(&png)), Some((9000, 300)));
        let gif = [b"GIF89a".as_slice(), &640u16.to_le_bytes(), &480u16.to_le_bytes()].concat();
        assert_eq!(dimensions(&b64(&gif)), Some((640, 480)));
        // A JPEG with an APP0 segment before its baseline frame header.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08];
        jpeg.extend_from_slice(&2100u16.to_be_bytes()); // height
        jpeg.extend_from_slice(&8100u16.to_be_bytes()); // width
        assert_eq!(dimensions(&b64(&jpeg)), Some((8100, 2100)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[0x3f, 0x1f, 0x00, 0xe7, 0x03, 0x00]); // 8000 x 1000, each minus one
        assert_eq!(dimensions(&b64(&webp)), Some((8000, 1000)));
        assert_eq!(dimensions("not base64!"), None);
        assert_eq!(dimensions(&b64(b"plain text")), None);
    }
}
