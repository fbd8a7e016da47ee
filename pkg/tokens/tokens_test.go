package tokens_test

import (
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

func TestEncodingForModel(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"gpt-4o-mini", tokens.O200K},
		{"gpt-4.1", tokens.O200K},
		{"openai/gpt-5", tokens.O200K},
		{"gpt-4-turbo", tokens.CL100K},
		{"gpt-3.5-turbo", tokens.CL100K},
		{"", tokens.CL100K},
	}
	for _, tt := range tests {
		if got := tokens.EncodingForModel(tt.give); got != tt.want {
			t.Errorf("EncodingForModel(%q) = %s, want %s", tt.give, got, tt.want)
		}
	}
}

func TestCountKnownValues(t *testing.T) {
	// Reference counts from OpenAI's tiktoken for cl100k_base.
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		give string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7},
	}
	for _, tt := range tests {
		if got := c.Count(tt.give); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.give, got, tt.want)
		}
	}
	if ko := c.Count("안녕하세요, 회의를 시작하겠습니다"); ko <= len([]rune("안녕하세요")) {
		t.Errorf("Korean text counted as %d tokens; BPE gives more than one per syllable block here", ko)
	}
}

func TestCountConcurrent(t *testing.T) {
	c, err := tokens.ForModel("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	want := c.Count("the quick brown fox 빠른 갈색 여우")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if got := c.Count("the quick brown fox 빠른 갈색 여우"); got != want {
					t.Errorf("concurrent count %d, want %d", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
