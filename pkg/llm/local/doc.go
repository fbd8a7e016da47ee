// Package local is MitHub's offline provider: deterministic, network-free
// implementations of the context engine's Embedder, Segmenter and
// Summarizer for Korean and English meetings.
//
// All three share one text analysis (tokenize.go, features.go): words are
// runs of Unicode letters and digits, lowercased, split where Hangul meets
// another script ("API를" → "api", "를"); transcript markup such as
// {disfmarker} is dropped; English stop words and fillers are removed and
// plurals folded; Hangul words lose common particles and verb endings
// ("회의에서는" → "회의", "논의했습니다" → "논의"). A text's features are
// its word unigrams, word bigrams and character n-grams (boundary-marked
// 3-grams of Latin words, syllable 2-grams of Hangul words), weighted by
// sub-linear term frequency.
//
// Embedder hashes the features into a fixed-dimension, L2-normalised
// vector (signed FNV-1a feature hashing). Segmenter finds topic boundaries
// by lexical cohesion between adjacent windows of turns (TextTiling depth
// scores) and uses the previous topic's last turns to decide whether a
// chunk continues it. Summarizer picks the turn sentence closest to the
// topic's centroid as the summary and the topic's most distinctive terms as
// keywords and title.
//
// Nothing here understands language; it is a lexical baseline that is
// fast, reproducible and honest about what it is.
package local
