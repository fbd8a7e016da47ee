package tokens_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

func TestContextWindow(t *testing.T) {
	tests := []struct {
		give     string
		override int
		want     int
	}{
		{"gpt-4o", 0, 128000},
		{"gpt-4o-mini", 0, 128000},
		{"GPT-4o-2024-08-06", 0, 128000},
		{"openai/gpt-4o-mini", 0, 128000},
		{"gpt-4.1", 0, 1047576},
		{"gpt-4.1-mini", 0, 1047576},
		{"gpt-4.1-nano-2025-04-14", 0, 1047576},
		{"gpt-5", 0, 400000},
		{"gpt-5-mini", 0, 400000},
		{"gpt-4-turbo", 0, 128000},
		{"gpt-4-turbo-2024-04-09", 0, 128000},
		{"gpt-4", 0, 8192},
		{"gpt-4-0613", 0, 8192},
		{"gpt-3.5-turbo", 0, 16385},
		{"o1", 0, 200000},
		{"o3-mini", 0, 200000},
		{"o4-mini", 0, 200000},
		{"HCX-003", 0, 8192},
		{"HCX-005", 0, 128000},
		{"naver/hcx-005", 0, 128000},
		{"llama-3.1-8b-instruct", 0, 128000},
		{"meta-llama/Llama-3.3-70B-Instruct", 0, 128000},
		{"llama3.2:3b", 0, 128000},
		{"qwen2.5:7b", 0, 32768},
		{"Qwen/Qwen2.5-72B-Instruct", 0, 32768},
		{"bge-m3", 0, 8192},
		{"BAAI/bge-m3", 0, 8192},
		{"local", 0, 8192},
		{"  gpt-4o  ", 0, 128000},
		{"mistral-large", 0, tokens.DefaultContextWindow},
		{"", 0, tokens.DefaultContextWindow},
		{"gpt-4o", 32000, 32000},
		{"mistral-large", 65536, 65536},
		{"gpt-4o", -1, 128000},
	}
	for _, tt := range tests {
		if got := tokens.ContextWindow(tt.give, tt.override); got != tt.want {
			t.Errorf("ContextWindow(%q, %d) = %d, want %d", tt.give, tt.override, got, tt.want)
		}
	}
}
