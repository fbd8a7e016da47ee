// Package tokens counts BPE tokens offline and fits prompts into a model's
// context window.
//
// Counts: cl100k_base by default and o200k_base for the gpt-4o, gpt-4.1,
// gpt-5 and o-series families, with the vocabularies compiled into the
// binary. Both run on hand-written pre-tokenizers whose counts equal
// tiktoken's (tested against tiktoken-go and js-tiktoken).
//
// Budgets: ContextWindow looks a model's window up, Budget keeps 90% of it
// minus the reserved output, Packer fits required and optional prompt parts
// into it, and Corrector learns per model how far the local counts are from
// the provider's reported usage.
package tokens
