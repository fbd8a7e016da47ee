package convmemory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tokens"
)

// BenchmarkAddMessage adds messages to a chat that already holds 10K or
// 1M tokens of turns (stored in bulk), as memory_add_message does: the add,
// then the should-compress check on the conversation's live tokens. The
// cost per message must not grow with the conversation
// (docs/architecture.md §7).
func BenchmarkAddMessage(b *testing.B) {
	const turnTokens = 50
	for _, existing := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("existing=%dK", existing/1000), func(b *testing.B) {
			st := storetest.New(b)
			ctx := context.Background()
			tenant, err := st.EnsureTenant(ctx, "acme")
			if err != nil {
				b.Fatal(err)
			}
			count, err := tokens.ForEncoding(tokens.CL100K)
			if err != nil {
				b.Fatal(err)
			}
			eng := convmemory.NewEngine(st, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: 32_768})
			svc := convmemory.NewService(eng, convmemory.NewInline(eng))
			c, err := svc.StartChat(ctx, tenant.ID, "bench")
			if err != nil {
				b.Fatal(err)
			}
			turns := make([]conversation.NewNode, 0, 5000)
			for seq := range existing / turnTokens {
				turns = append(turns, conversation.NewNode{Seq: seq, Tokens: turnTokens,
					Text: fmt.Sprintf("user\tmessage %d about the release plan and its open questions", seq)})
				if len(turns) == cap(turns) {
					if _, err := st.AppendTurns(ctx, tenant.ID, c.ID, turns); err != nil {
						b.Fatal(err)
					}
					turns = turns[:0]
				}
			}
			if _, err := st.AppendTurns(ctx, tenant.ID, c.ID, turns); err != nil {
				b.Fatal(err)
			}
			add := func() {
				if _, err := svc.AddMessage(ctx, tenant.ID, c.ID, "user", "the benchmark adds one more message about the release"); err != nil {
					b.Fatal(err)
				}
				if _, err := svc.ShouldCompress(ctx, tenant.ID, c.ID, 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			add() // the first call reads the conversation once
			b.ResetTimer()
			for b.Loop() {
				add()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
