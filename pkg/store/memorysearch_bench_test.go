package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/textutil"
)

// BenchmarkSearchNodes searches a conversation of 20,000 turns of 50
// words (about 1M tokens) for three words, one of them in about a tenth of
// the turns (word40), one rare; the first search, which indexes the
// turns' terms, is logged and not timed.
func BenchmarkSearchNodes(b *testing.B) {
	st := storetest.New(b)
	ctx := context.Background()
	tenant, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, tenant.ID, conversation.KindChat, "", "long")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("word%d", i)
	}
	const turns, words = 20000, 50
	for start := 0; start < turns; start += 1000 {
		batch := make([]conversation.NewNode, 1000)
		for i := range batch {
			ws := make([]string, words)
			for j := range ws {
				// Zipf-like: low word numbers are frequent.
				ws[j] = vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64()*rng.Float64())]
			}
			batch[i] = conversation.NewNode{Seq: start + i, Text: "user\t" + strings.Join(ws, " "), Tokens: words}
		}
		if _, err := st.AppendTurns(ctx, tenant.ID, c.ID, batch); err != nil {
			b.Fatal(err)
		}
	}
	terms := textutil.Terms(nil, "word40 word2500 word4900")
	start := time.Now()
	if _, err := st.SearchNodes(ctx, tenant.ID, c.ID, terms, 10); err != nil {
		b.Fatal(err)
	}
	b.Logf("first search, indexing %d turns: %v", turns, time.Since(start))
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.SearchNodes(ctx, tenant.ID, c.ID, terms, 10); err != nil {
			b.Fatal(err)
		}
	}
}
