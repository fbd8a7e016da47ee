package convmemory_test

import (
	"context"
	"testing"

	"github.com/mithub/mithub/pkg/convmemory"
)

// chatOf starts a chat of the tenant holding messages (alternately user
// and assistant) and returns its id.
func (f *fixture) chatOf(t *testing.T, tenantID string, messages ...string) string {
	t.Helper()
	ctx := context.Background()
	c, err := f.svc.StartChat(ctx, tenantID, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range messages {
		role := []string{"user", "assistant"}[i%2]
		if _, err := f.svc.AddMessage(ctx, tenantID, c.ID, role, m); err != nil {
			t.Fatal(err)
		}
	}
	return c.ID
}

func TestSearchRanksByTerms(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	c := f.chatOf(t, f.tenant.ID,
		"다음 분기 예산을 GPU 클러스터에 배정했습니다.",
		"The release is planned for the spring.",
		"What is the plan for the office move?",
		"It was about the hiring of two engineers.",
		"회의는 목요일에 합니다.",
	)
	tests := []struct {
		name    string
		give    string
		wantSeq int
	}{
		{"a Korean particle differs", "예산은 얼마야?", 0},
		{"English stop words are not terms", "what is it about the release", 1},
		{"every term counts", "office move plan", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.svc.Search(context.Background(), f.tenant.ID, c, tt.give, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Kind != "turn" || hits[0].Seq != tt.wantSeq {
				t.Fatalf("Search(%q) = %+v, want turn %d first", tt.give, hits, tt.wantSeq)
			}
			if hits[0].FromTurn != tt.wantSeq || hits[0].ToTurn != tt.wantSeq || hits[0].Speaker == "" {
				t.Errorf("hit %+v: want its speaker and span %d..%d", hits[0], tt.wantSeq, tt.wantSeq)
			}
		})
	}
	// Stop words alone are not a query, though turns hold them.
	if _, err := f.svc.Search(context.Background(), f.tenant.ID, c, "what is it", 10); err == nil {
		t.Errorf("a query of stop words: no error, want ErrInvalid")
	}
}

// Search scopes: a conversation id holds one conversation, "" all of the
// tenant's, and another tenant's conversations are never found.
func TestSearchScopes(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	ctx := context.Background()
	other, err := f.st.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	c1 := f.chatOf(t, f.tenant.ID, "the deploy key rotates on Friday")
	c2 := f.chatOf(t, f.tenant.ID, "we rotate the deploy key monthly")
	theirs := f.chatOf(t, other.ID, "their deploy key is stored in the vault")
	tests := []struct {
		name   string
		tenant string
		conv   string
		want   []string
	}{
		{"current conversation", f.tenant.ID, c1, []string{c1}},
		{"all of the tenant's", f.tenant.ID, "", []string{c2, c1}},
		{"the other tenant", other.ID, "", []string{theirs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.svc.Search(ctx, tt.tenant, tt.conv, "deploy key", 10)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range hits {
				got[h.ConversationID] = true
			}
			if len(got) != len(tt.want) {
				t.Fatalf("hits from %v, want %v", got, tt.want)
			}
			for _, id := range tt.want {
				if !got[id] {
					t.Errorf("hits from %v, want %v", got, tt.want)
				}
			}
		})
	}
	if _, err := f.svc.Search(ctx, other.ID, c1, "deploy key", 10); err == nil {
		t.Errorf("another tenant searched acme's conversation")
	}
}
