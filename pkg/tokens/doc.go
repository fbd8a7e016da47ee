// Package tokens counts BPE tokens offline: cl100k_base by default and
// o200k_base for the gpt-4o, gpt-4.1 and gpt-5 model families, with the
// vocabularies compiled into the binary.
package tokens
