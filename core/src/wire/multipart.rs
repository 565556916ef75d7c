//! `multipart/form-data` bodies (RFC 7578), as OpenAI's SDKs send uploads: transcriptions, image edits, files.
//!
//! Read here rather than with a crate: the wire is pure functions over a whole body (no I/O, also in the WASM
//! module), where the Rust multipart crates read an async stream; and the delimiter search is a plain scan, as a
//! substring-search crate cost the WASM module 10 KB for bodies of a few megabytes at most. A part is its headers (`Content-Disposition`'s
//! `name` and `filename`, `Content-Type`) and its bytes between the CRLF after the headers and the CRLF before the
//! next delimiter.

/// One part of a form.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Part<'a> {
    /// The form field's name.
    pub name: String,
    /// The file name, for a file.
    pub filename: Option<String>,
    /// The part's own content type.
    pub content_type: Option<String>,
    /// Its bytes.
    pub body: &'a [u8],
}

impl Part<'_> {
    /// The part's bytes as text (a plain field), or what is wrong.
    pub fn text(&self) -> Result<&str, String> {
        std::str::from_utf8(self.body).map_err(|_| format!("the form field {:?} is not UTF-8 text", self.name))
    }
}

/// The boundary a `multipart/form-data` content type names, or `None` for any other content type.
pub(crate) fn boundary(content_type: &str) -> Option<&str> {
    let mut params = content_type.split(';');
    if !params.next()?.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim().eq_ignore_ascii_case("boundary").then(|| value.trim().trim_matches('"'))
    })
}

/// The parts of a form, or what is wrong with it.
pub(crate) fn parse<'a>(content_type: Option<&str>, body: &'a [u8]) -> Result<Vec<Part<'a>>, String> {
    let boundary = content_type
        .and_then(boundary)
        .filter(|b| !b.is_empty())
        .ok_or("the request must be multipart/form-data with a boundary (a file upload)")?;
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut at = find(body, delimiter).ok_or("the form has no part (its boundary never occurs)")? + delimiter.len();
    let mut parts = Vec::new();
    loop {
        let rest = body.get(at..).unwrap_or_default();
        if rest.starts_with(b"--") {
            return Ok(parts); // the closing delimiter
        }
        let rest = rest.strip_prefix(b"\r\n").ok_or("a form delimiter is not followed by a line break")?;
        let start = body.len() - rest.len();
        let headers_end = find(rest, b"\r\n\r\n").ok_or("a form part has no end to its headers")?;
        let headers = std::str::from_utf8(rest.get(..headers_end).unwrap_or_default())
            .map_err(|_| "a form part's headers are not UTF-8")?;
        let content_start = start + headers_end + 4;
        let next = find(body.get(content_start..).unwrap_or_default(), delimiter)
            .ok_or("the form ends without its closing delimiter")?;
        // The part's bytes end at the CRLF before the delimiter.
        let content_end = (content_start + next).saturating_sub(2).max(content_start);
        parts.push(part(headers, body.get(content_start..content_end).unwrap_or_default())?);
        at = content_start + next + delimiter.len();
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(offset) = haystack.get(from..)?.iter().position(|&b| b == first) {
        let at = from + offset;
        if haystack.get(at + 1..at + needle.len()) == Some(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn part<'a>(headers: &str, body: &'a [u8]) -> Result<Part<'a>, String> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in headers.split("\r\n") {
        let Some((header, value)) = line.split_once(':') else { continue };
        match header.trim().to_ascii_lowercase().as_str() {
            "content-disposition" => {
                for param in value.split(';').skip(1) {
                    let Some((key, value)) = param.split_once('=') else { continue };
                    let value = value.trim().trim_matches('"').to_string();
                    match key.trim() {
                        "name" => name = Some(value),
                        "filename" => filename = Some(value),
                        _ => {}
                    }
                }
            }
            "content-type" => content_type = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let name = name.ok_or("a form part has no name in its Content-Disposition")?;
    Ok(Part { name, filename, content_type, body })
}

/// The first part named `name`.
pub(crate) fn field<'p, 'a>(parts: &'p [Part<'a>], name: &str) -> Option<&'p Part<'a>> {
    parts.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: &[u8] = b"--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--XyZ\r\n\
        Content-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n\
        RIFF\r\n--X\x00\xff\r\n--XyZ--\r\n";

    #[test]
    fn fields_and_files_are_read_with_their_exact_bytes() {
        let parts = parse(Some("multipart/form-data; boundary=XyZ"), FORM).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!((parts[0].name.as_str(), parts[0].text().unwrap()), ("model", "whisper-1"));
        let file = field(&parts, "file").unwrap();
        assert_eq!(file.filename.as_deref(), Some("a.wav"));
        assert_eq!(file.content_type.as_deref(), Some("audio/wav"));
        assert_eq!(file.body, b"RIFF\r\n--X\x00\xff");
        assert_eq!(boundary("multipart/form-data; boundary=\"q b\""), Some("q b"));
    }

    #[test]
    fn malformed_forms_say_what_is_wrong() {
        assert!(parse(Some("application/json"), FORM).unwrap_err().contains("multipart/form-data"));
        assert!(parse(Some("multipart/form-data; boundary=nope"), FORM).unwrap_err().contains("never occurs"));
        let unterminated = b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue";
        assert!(parse(Some("multipart/form-data; boundary=XyZ"), unterminated).unwrap_err().contains("closing"));
        let nameless = b"--XyZ\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ--";
        assert!(parse(Some("multipart/form-data; boundary=XyZ"), nameless).unwrap_err().contains("no name"));
        assert_eq!(parse(Some("multipart/form-data; boundary=XyZ"), b"--XyZ--").unwrap(), Vec::new());
    }
}
