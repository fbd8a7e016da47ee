package tokens

import "strings"

// DefaultContextWindow is the window assumed for a model the table does not
// know.
const DefaultContextWindow = 8192

// contextWindows maps model-name prefixes to context windows in tokens. The
// longest matching prefix wins, so "gpt-4o" beats "gpt-4" and "o1-mini"
// beats "o1".
var contextWindows = map[string]int{
	"gpt-4o":                 128000,
	"chatgpt-4o":             128000,
	"gpt-4.1":                1047576,
	"gpt-5":                  400000,
	"gpt-4-turbo":            128000,
	"gpt-4-1106":             128000,
	"gpt-4-0125":             128000,
	"gpt-4-vision":           128000,
	"gpt-4-32k":              32768,
	"gpt-4":                  8192,
	"gpt-3.5-turbo":          16385,
	"gpt-3.5-turbo-instruct": 4096,
	"o1":                     200000,
	"o1-mini":                128000,
	"o1-preview":             128000,
	"o3":                     200000,
	"o4-mini":                200000,
	"hcx-003":                8192,
	"hcx-005":                128000,
	// Llama 3.0 had 8K; 3.1 and later 128K. Ollama writes "llama3.1".
	"llama-3":   8192,
	"llama3":    8192,
	"llama-3.1": 128000,
	"llama-3.2": 128000,
	"llama-3.3": 128000,
	"llama3.1":  128000,
	"llama3.2":  128000,
	"llama3.3":  128000,
	"qwen2.5":   32768,
	"qwen-2.5":  32768,
	"bge-m3":    8192,
	"local":     8192,
}

// ContextWindow returns a model's context window in tokens. A positive
// override (MITHUB_LLM_CONTEXT_WINDOW) wins; otherwise the model name,
// lowercased and without a "provider/" prefix, is matched against the table
// by longest prefix; an unknown model gets DefaultContextWindow.
func ContextWindow(model string, override int) int {
	if override > 0 {
		return override
	}
	if n, ok := knownContextWindow(model); ok {
		return n
	}
	return DefaultContextWindow
}

func knownContextWindow(model string) (int, bool) {
	m := modelKey(model)
	best, n := -1, 0
	for prefix, window := range contextWindows {
		if len(prefix) > best && strings.HasPrefix(m, prefix) {
			best, n = len(prefix), window
		}
	}
	return n, best >= 0
}

// modelKey normalises a model name: trimmed, lowercased, and without a
// "provider/" prefix ("openai/gpt-4o" → "gpt-4o").
func modelKey(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}
