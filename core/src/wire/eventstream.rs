//! The AWS event-stream binary framing (`application/vnd.amazon.eventstream`), which Bedrock's streaming operations
//! answer in (`../shared/spec/providers.md` §4.5):
//!
//! ```text
//! total length (u32 BE) | headers length (u32 BE) | prelude CRC32 (u32 BE) | headers | payload | message CRC32 (u32 BE)
//! ```
//!
//! The total counts the whole message, both CRCs included; the prelude CRC covers bytes 0-7; the message CRC covers
//! everything before it, prelude and prelude CRC included. A header is its name's length (u8), the name, a type
//! byte and the value; cuecard writes only strings (type 7: a u16 BE length and UTF-8), as Bedrock does for its
//! `:`-headers. `decode` reads messages back (for tests, and for the recordings that will replay them).

/// Header value type 7: a string.
const STRING: u8 = 7;

use crate::media::crc32;

/// One message: its headers (name and string value, in order) and payload.
pub fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(name, value)| (clipped(name, usize::from(u8::MAX)), clipped(value, usize::from(u16::MAX))))
        .collect();
    let headers_length: usize = headers.iter().map(|(name, value)| 1 + name.len() + 1 + 2 + value.len()).sum();
    let total = 12 + headers_length + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&length(total));
    out.extend_from_slice(&length(headers_length));
    let prelude_crc = crc32(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    for (name, value) in headers {
        // Both fit their prefixes (`clipped`), so the casts do not truncate.
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.push(STRING);
        out.extend_from_slice(&(value.len() as u16).to_be_bytes());
        out.extend_from_slice(value.as_bytes());
    }
    out.extend_from_slice(payload);
    let message_crc = crc32(&out);
    out.extend_from_slice(&message_crc.to_be_bytes());
    out
}

/// `text` cut to at most `limit` bytes, at a char boundary: a header's name (u8 length) and value (u16 length) must
/// fit their prefixes. Names are cuecard's constants; a value can be a scripted `error_type`, so it is cut rather than
/// written with a wrong length.
fn clipped(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let end = (0..=limit).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    text.get(..end).unwrap_or_default()
}

/// A length as the prelude writes it. Messages cuecard writes are far below 4 GiB (payloads are JSON events).
fn length(n: usize) -> [u8; 4] {
    u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes()
}

/// A decoded message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The headers whose values are strings, in order.
    pub headers: Vec<(String, String)>,
    /// The payload.
    pub payload: Vec<u8>,
}

/// Why bytes are not an event-stream message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than the prelude or the total length says.
    Truncated,
    /// The prelude's CRC does not match.
    PreludeCrc,
    /// The message CRC does not match.
    MessageCrc,
    /// A header is malformed or of a type cuecard does not read.
    Header,
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes)
}

/// The first message of `bytes` and how many bytes it took.
pub fn decode(bytes: &[u8]) -> Result<(Message, usize), DecodeError> {
    let total = be32(bytes, 0).ok_or(DecodeError::Truncated)? as usize;
    let headers_length = be32(bytes, 4).ok_or(DecodeError::Truncated)? as usize;
    let prelude_crc = be32(bytes, 8).ok_or(DecodeError::Truncated)?;
    if crc32(bytes.get(..8).ok_or(DecodeError::Truncated)?) != prelude_crc {
        return Err(DecodeError::PreludeCrc);
    }
    if total < 16 + headers_length {
        return Err(DecodeError::Header);
    }
    let message = bytes.get(..total).ok_or(DecodeError::Truncated)?;
    let crc = be32(message, total - 4).ok_or(DecodeError::Truncated)?;
    if crc32(message.get(..total - 4).ok_or(DecodeError::Truncated)?) != crc {
        return Err(DecodeError::MessageCrc);
    }
    let mut headers = Vec::new();
    let mut rest = message.get(12..12 + headers_length).ok_or(DecodeError::Header)?;
    while let Some((&name_length, after)) = rest.split_first() {
        let name = after.get(..usize::from(name_length)).ok_or(DecodeError::Header)?;
        let after = after.get(usize::from(name_length)..).ok_or(DecodeError::Header)?;
        let (&kind, after) = after.split_first().ok_or(DecodeError::Header)?;
        if kind != STRING {
            return Err(DecodeError::Header);
        }
        let value_length =
            after.get(..2).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]]))).ok_or(DecodeError::Header)?;
        let value = after.get(2..2 + value_length).ok_or(DecodeError::Header)?;
        let name = String::from_utf8(name.to_vec()).map_err(|_| DecodeError::Header)?;
        let value = String::from_utf8(value.to_vec()).map_err(|_| DecodeError::Header)?;
        headers.push((name, value));
        rest = after.get(2 + value_length..).ok_or(DecodeError::Header)?;
    }
    let payload = message.get(12 + headers_length..total - 4).ok_or(DecodeError::Header)?.to_vec();
    Ok((Message { headers, payload }, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn the_published_vectors() {
        // smithy-typescript's eventstream-codec fixtures (providers.md §4.5): the empty message, and one string header
        // with a JSON payload.
        assert_eq!(hex(&encode(&[], b"")), "000000100000000005c248eb7d98c8ff");
        let message = encode(&[("content-type", "application/json")], b"{'foo':'bar'}");
        assert_eq!(hex(&message[..12]), "0000003d0000002007fd8396");
        assert_eq!(hex(&message[message.len() - 4..]), "8d9c08b1");
        // The constructed ConverseStream delta and throttling exception of the same section.
        let delta = encode(
            &[(":event-type", "contentBlockDelta"), (":content-type", "application/json"), (":message-type", "event")],
            br#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#,
        );
        assert_eq!(
            (delta.len(), hex(&delta[..12]), hex(&delta[delta.len() - 4..])),
            (148, "0000009400000057b4ab9aee".into(), "1f944657".into())
        );
        let throttled = encode(
            &[
                (":exception-type", "throttlingException"),
                (":content-type", "application/json"),
                (":message-type", "exception"),
            ],
            br#"{"message":"Too many requests, please wait before trying again."}"#,
        );
        assert_eq!(hex(&throttled[..12]), "000000b20000006135 90d5d3".replace(' ', ""));
        assert_eq!(hex(&throttled[throttled.len() - 4..]), "e8ffb26a");
    }

    #[test]
    fn a_header_value_too_long_for_its_prefix_is_cut_and_the_frame_stays_valid() {
        let long = "é".repeat(40_000); // 80,000 bytes, over a u16 length
        let (message, _) = decode(&encode(&[(":exception-type", &long)], b"{}")).unwrap();
        assert_eq!(message.headers[0].1.len(), 65_534, "cut at the last char boundary within 65,535 bytes");
        assert!(long.starts_with(&message.headers[0].1));
    }

    proptest! {
        #[test]
        fn the_small_table_is_crc32fasts_crc(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(crate::media::crc32_small(&bytes), crc32fast::hash(&bytes));
        }

        #[test]
        fn frames_decode_back_and_any_flipped_byte_fails(
            headers in proptest::collection::vec(("[a-z:-]{1,20}", "[ -~]{0,40}"), 0..5),
            payload in proptest::collection::vec(any::<u8>(), 0..200),
            flip in any::<prop::sample::Index>(),
            bit in 0u8..8,
        ) {
            let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            let message = encode(&borrowed, &payload);
            let (decoded, used) = decode(&message).unwrap();
            prop_assert_eq!(used, message.len());
            prop_assert_eq!(decoded.headers, headers.clone());
            prop_assert_eq!(decoded.payload, payload);
            let mut broken = message.clone();
            let at = flip.index(broken.len());
            broken[at] ^= 1 << bit;
            prop_assert!(decode(&broken).is_err(), "a flipped bit at byte {} went unnoticed", at);
        }
    }
}
