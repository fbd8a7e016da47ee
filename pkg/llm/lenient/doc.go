// Package lenient reads the JSON that language models write.
//
// Extract finds the first JSON object or array in a model's answer and
// repairs the usual damage: code fences and prose around it, trailing or
// missing commas, comments, single-quoted strings (an apostrophe inside
// stays text), unquoted keys, smart quotes used as string delimiters,
// unescaped quotes and raw line breaks inside strings, Python literals,
// and an answer cut off in the middle (open strings and brackets are
// closed and the incomplete last element of the innermost array is
// dropped). Its result is always valid JSON.
//
// Decode (and Unmarshal, for text that is already JSON) then fills a Go
// value, coercing what models get wrong: numbers written as strings,
// numbers where strings are expected, "true"/"false" strings, a single
// object where an array is expected and a one-element array where a
// single value is expected. Like encoding/json, a value that cannot be
// coerced leaves its field untouched, decoding goes on, and the first such
// problem is returned as a *TypeError.
package lenient
