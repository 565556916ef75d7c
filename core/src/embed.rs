//! Embeddings whose similarity means something: built from the text's word-like tokens by feature hashing, so
//! texts that share words are closer than texts that do not, and the same text gives the same vector on every
//! protocol, in every language and run.
//!
//! The rule (docs/embeddings.md): each word-like token, trimmed and lower-cased, adds 1 to one coordinate, and each
//! pair of adjacent words adds 0.5 to another; the coordinate and the sign come from a 64-bit FNV-1a hash of the
//! feature and the scenario's seed. The vector is then scaled to unit length. It is lexical, not semantic: "cat"
//! and "kitten" share nothing, "cat" and "cats" share nothing either.

use crate::tokenize::tokenize;

/// The unit embedding of `text` in `dimensions` coordinates (at least 1).
pub fn embedding(seed: u64, text: &str, dimensions: usize) -> Vec<f32> {
    let dimensions = dimensions.max(1);
    let mut values = vec![0.0_f64; dimensions];
    let words: Vec<String> =
        tokenize(text).map(|token| token.trim().to_lowercase()).filter(|word| !word.is_empty()).collect();
    let mut add = |feature: &[&str], weight: f64| {
        let hash = feature_hash(seed, feature);
        let at = (hash % dimensions as u64) as usize;
        let sign = if hash >> 63 == 1 { -1.0 } else { 1.0 };
        if let Some(value) = values.get_mut(at) {
            *value += sign * weight;
        }
    };
    for word in &words {
        add(&[word], 1.0);
    }
    for pair in words.windows(2) {
        if let [first, second] = pair {
            add(&[first, second], 0.5);
        }
    }
    let norm = values.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm == 0.0 {
        // No words (or features that cancelled out): still a unit vector, the same for every such text.
        let mut unit = vec![0.0_f32; dimensions];
        if let Some(first) = unit.first_mut() {
            *first = 1.0;
        }
        return unit;
    }
    values.into_iter().map(|v| (v / norm) as f32).collect()
}

/// FNV-1a over the seed's bytes and the feature's parts (each followed by a 0 byte, so that pairs and words never
/// collide by concatenation).
fn feature_hash(seed: u64, parts: &[&str]) -> u64 {
    let bytes = seed.to_le_bytes().into_iter().chain(parts.iter().flat_map(|p| p.bytes().chain([0])));
    crate::seeded::fnv1a64(bytes)
}

/// The cosine similarity of two vectors of the same length.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let norms = norm(a) * norm(b);
    if norms == 0.0 {
        0.0
    } else {
        dot / norms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_sharing_words_are_closer_than_texts_that_do_not() {
        let cat = embedding(0, "the cat sat on the mat", 256);
        let near = embedding(0, "a cat on a mat", 256);
        let far = embedding(0, "stock prices fell", 256);
        assert!(cosine(&cat, &near) > 0.3, "{}", cosine(&cat, &near));
        assert!(cosine(&cat, &far).abs() < 0.15, "{}", cosine(&cat, &far));
        assert!(cosine(&cat, &near) > cosine(&cat, &far));
    }

    #[test]
    fn the_same_text_gives_the_same_unit_vector_and_case_and_spacing_do_not_matter() {
        let one = embedding(7, "Hello,  World", 64);
        assert_eq!(one, embedding(7, "hello, world", 64));
        assert!((cosine(&one, &one) - 1.0).abs() < 1e-6);
        assert!((one.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>() - 1.0).abs() < 1e-5);
        assert_ne!(one, embedding(8, "hello, world", 64), "the seed moves every feature");
    }

    #[test]
    fn a_text_without_words_is_still_a_unit_vector() {
        assert_eq!(embedding(0, "   ", 3), vec![1.0, 0.0, 0.0]);
        assert_eq!(embedding(0, "", 0), vec![1.0]);
    }
}
