package tokens

import (
	"fmt"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names.
const (
	CL100K = "cl100k_base"
	O200K  = "o200k_base"
)

// Counter counts tokens in text. Implementations are safe for concurrent
// use.
type Counter interface {
	Count(text string) int
	// Encoding names the BPE table the counts come from.
	Encoding() string
}

// EncodingForModel picks the BPE table for a model name: o200k_base for the
// gpt-4o, gpt-4.1, gpt-5 and o-series families, cl100k_base otherwise.
func EncodingForModel(model string) string {
	m := modelKey(model)
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o"} {
		if strings.HasPrefix(m, p) {
			return O200K
		}
	}
	return CL100K
}

var (
	loaderOnce sync.Once
	encMu      sync.Mutex
	encCache   = map[string]Counter{}
)

// fastEncodings lists the tables with a hand-written pre-tokenizer: the key
// under which the offline loader keeps the ranks, and the splitter.
var fastEncodings = map[string]struct {
	ranksFile string
	next      func(s string, i int) int
}{
	CL100K: {"https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken", nextCL100K},
	O200K:  {"https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken", nextO200K},
}

// ForEncoding returns the counter for a BPE table by name. Tables load once
// per process.
func ForEncoding(name string) (Counter, error) {
	encMu.Lock()
	defer encMu.Unlock()
	if c, ok := encCache[name]; ok {
		return c, nil
	}
	var c Counter
	if fe, ok := fastEncodings[name]; ok {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(fe.ranksFile)
		if err != nil {
			return nil, fmt.Errorf("load encoding %s: %w", name, err)
		}
		c = &fastCounter{name: name, ranks: ranks, next: fe.next}
	} else {
		ref, err := referenceCounter(name)
		if err != nil {
			return nil, err
		}
		c = ref
	}
	encCache[name] = c
	return c, nil
}

// referenceCounter counts with tiktoken-go's regex-based encoder. Tables
// without a fast pre-tokenizer use it; tests compare the fast counters
// against it.
func referenceCounter(name string) (Counter, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("load encoding %s: %w", name, err)
	}
	return &bpeCounter{name: name, enc: enc}, nil
}

// ForModel returns the counter for a model name.
func ForModel(model string) (Counter, error) {
	return ForEncoding(EncodingForModel(model))
}

type bpeCounter struct {
	name string
	enc  *tiktoken.Tiktoken
}

func (c *bpeCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	// Special-token text counts as ordinary text: transcripts are data.
	return len(c.enc.EncodeOrdinary(text))
}

func (c *bpeCounter) Encoding() string { return c.name }
