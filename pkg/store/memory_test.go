package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/textutil"
)

func TestMemoryNodes(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	acme, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, acme.ID, conversation.KindChat, "", "chat")
	if err != nil {
		t.Fatal(err)
	}
	turns := []conversation.NewNode{{Seq: 0, Text: "user\t안녕하세요", Tokens: 5}, {Seq: 1, Text: "assistant\thello", Tokens: 3}}
	if n, err := st.AppendTurns(ctx, acme.ID, c.ID, turns); err != nil || n != 2 {
		t.Fatalf("append: %d %v", n, err)
	}
	if n, err := st.AppendTurns(ctx, acme.ID, c.ID, turns); err != nil || n != 0 {
		t.Fatalf("append again: %d %v, want 0 new", n, err)
	}
	if n, err := st.AppendTurns(ctx, other.ID, c.ID, []conversation.NewNode{{Seq: 2, Text: "x"}}); err != nil || n != 0 {
		t.Fatalf("another tenant appended %d (%v)", n, err)
	}
	if next, err := st.NextTurnSeq(ctx, acme.ID, c.ID); err != nil || next != 2 {
		t.Fatalf("next seq %d %v", next, err)
	}
	refs, err := st.NodeRefs(ctx, acme.ID, c.ID, 0, 0)
	if err != nil || len(refs) != 2 {
		t.Fatalf("refs %v %v", refs, err)
	}
	ids := []int64{refs[0].ID, refs[1].ID}

	first, created, err := st.PutSummary(ctx, acme.ID, c.ID, conversation.NewNode{Level: 1, Seq: 0, Text: "인사", Tokens: 2, ChildIDs: ids})
	if err != nil || !created {
		t.Fatalf("put: %v %v", created, err)
	}
	same, created, err := st.PutSummary(ctx, acme.ID, c.ID, conversation.NewNode{Level: 1, Seq: 0, Text: "other text", Tokens: 2, ChildIDs: ids})
	if err != nil || created || same.ID != first.ID || same.Text != "인사" {
		t.Fatalf("same children must keep the stored node: %+v created %v %v", same, created, err)
	}
	repl, created, err := st.PutSummary(ctx, acme.ID, c.ID, conversation.NewNode{Level: 1, Seq: 0, Text: "greeting", Tokens: 1, ChildIDs: ids[:1]})
	if err != nil || !created || repl.ID == first.ID {
		t.Fatalf("other children must replace the node with a new id: %+v created %v %v", repl, created, err)
	}
	if _, _, err := st.PutSummary(ctx, other.ID, c.ID, conversation.NewNode{Level: 1, Seq: 1, Text: "x", ChildIDs: ids}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another tenant's summary: %v, want ErrNotFound", err)
	}
	if _, _, err := st.PutSummary(ctx, acme.ID, c.ID, conversation.NewNode{Level: 0, Seq: 5, Text: "x"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("level-0 summary: %v, want ErrInvalid", err)
	}

	hits, err := st.SearchNodes(ctx, acme.ID, "", textutil.Terms(nil, "안녕하세요 100%"), 10)
	if err != nil || len(hits) != 1 || hits[0].Seq != 0 {
		t.Errorf("search: %+v %v", hits, err)
	}
	if hits, _ := st.SearchNodes(ctx, other.ID, "", textutil.Terms(nil, "안녕하세요"), 10); len(hits) != 0 {
		t.Errorf("another tenant found %d nodes", len(hits))
	}
	if n, err := st.DeleteSummaries(ctx, acme.ID, c.ID); err != nil || n != 1 {
		t.Errorf("delete summaries: %d %v", n, err)
	}
}

func TestConversations(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	acme, _ := st.EnsureTenant(ctx, "acme")
	other, _ := st.EnsureTenant(ctx, "other")
	m, err := st.CreateMeeting(ctx, acme.ID, store.NewMeeting{Title: "주간 회의"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		tenant    string
		kind      string
		meetingID string
		want      error
	}{
		{"chat with a meeting", acme.ID, conversation.KindChat, m.ID, store.ErrInvalid},
		{"meeting without one", acme.ID, conversation.KindMeeting, "", store.ErrInvalid},
		{"unknown kind", acme.ID, "call", "", store.ErrInvalid},
		{"another tenant's meeting", other.ID, conversation.KindMeeting, m.ID, store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.CreateConversation(ctx, tt.tenant, tt.kind, tt.meetingID, ""); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	a, err := st.MeetingConversation(ctx, acme.ID, m.ID)
	if err != nil || a.Title != "주간 회의" || a.Kind != conversation.KindMeeting {
		t.Fatalf("meeting conversation: %+v %v", a, err)
	}
	b, err := st.MeetingConversation(ctx, acme.ID, m.ID)
	if err != nil || b.ID != a.ID {
		t.Errorf("second call made another conversation: %v %v", b.ID, err)
	}
	if _, err := st.GetConversation(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another tenant got the conversation: %v", err)
	}
	list, err := st.ListConversations(ctx, acme.ID, 10)
	if err != nil || len(list) != 1 {
		t.Errorf("list: %d %v", len(list), err)
	}
}
