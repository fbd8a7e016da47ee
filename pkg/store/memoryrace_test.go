package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// Writers racing on one summary node all get the same row back; exactly
// one of them created it.
func TestPutSummaryConcurrentWritersAgree(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	acme, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, acme.ID, conversation.KindChat, "", "race")
	if err != nil {
		t.Fatal(err)
	}
	turns := make([]conversation.NewNode, 4)
	for i := range turns {
		turns[i] = conversation.NewNode{Seq: i, Text: fmt.Sprintf("user\tturn %d", i), Tokens: 3}
	}
	if _, err := st.AppendTurns(ctx, acme.ID, c.ID, turns); err != nil {
		t.Fatal(err)
	}
	refs, err := st.NodeRefs(ctx, acme.ID, c.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	for round := range 20 {
		const writers = 8
		var (
			wg      sync.WaitGroup
			nodes   [writers]conversation.Node
			created [writers]bool
			errs    [writers]error
		)
		for w := range writers {
			wg.Go(func() {
				nodes[w], created[w], errs[w] = st.PutSummary(ctx, acme.ID, c.ID, conversation.NewNode{
					Level: 1, Seq: round, Text: fmt.Sprintf("summary by %d", w), Tokens: 3, ChildIDs: ids})
			})
		}
		wg.Wait()
		made := 0
		for w := range writers {
			if errs[w] != nil {
				t.Fatalf("round %d writer %d: %v", round, w, errs[w])
			}
			if nodes[w].ID != nodes[0].ID || nodes[w].Text != nodes[0].Text {
				t.Fatalf("round %d: writer %d got node %d %q, writer 0 got %d %q", round, w, nodes[w].ID, nodes[w].Text, nodes[0].ID, nodes[0].Text)
			}
			if created[w] {
				made++
			}
		}
		if made != 1 {
			t.Fatalf("round %d: %d writers say they created the node, want 1", round, made)
		}
	}
}
