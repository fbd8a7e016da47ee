package segment

import "errors"

// ErrNoFeatures means a text has no letters or digits to work with (empty,
// punctuation or transcript markup only); the Embedder refuses to return a
// zero vector for it.
var ErrNoFeatures = errors.New("local: text has no words")

// ErrNoContent means a Summarizer got no turn with any words.
var ErrNoContent = errors.New("local: turns have no words")
