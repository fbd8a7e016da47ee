package store_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/textutil"
)

// searchFixture is a store with tenant acme's chat c and tenant other.
type searchFixture struct {
	st          *store.Store
	acme, other string
	c           string
}

func newSearchFixture(t *testing.T) searchFixture {
	t.Helper()
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
	f := searchFixture{st: st, acme: acme.ID, other: other.ID}
	f.c = f.chat(t, f.acme)
	return f
}

func (f searchFixture) chat(t *testing.T, tenantID string) string {
	t.Helper()
	c, err := f.st.CreateConversation(context.Background(), tenantID, conversation.KindChat, "", "chat")
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func (f searchFixture) turns(t *testing.T, tenantID, convID string, texts ...string) {
	t.Helper()
	nodes := make([]conversation.NewNode, len(texts))
	for i, s := range texts {
		nodes[i] = conversation.NewNode{Seq: i, Text: s, Tokens: len(textutil.Terms(nil, s))}
	}
	if n, err := f.st.AppendTurns(context.Background(), tenantID, convID, nodes); err != nil || n != len(nodes) {
		t.Fatalf("append %d turns: %d %v", len(nodes), n, err)
	}
}

func (f searchFixture) search(t *testing.T, tenantID, convID, query string, k int) []conversation.NodeMatch {
	t.Helper()
	ms, err := f.st.SearchNodes(context.Background(), tenantID, convID, textutil.Terms(nil, query), k)
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return ms
}

// The first of 5,000 turns is found: a search that read only the newest
// rows before ranking (the old 1,000-row cap) never sees it.
func TestSearchNodesFindsTheOldestTurn(t *testing.T) {
	f := newSearchFixture(t)
	texts := make([]string, 5000)
	for i := range texts {
		texts[i] = fmt.Sprintf("user\tthe budget review, item %d of the plan", i)
	}
	texts[0] = "user\tthe budget goes to the Zanzibar office"
	f.turns(t, f.acme, f.c, texts...)
	ms := f.search(t, f.acme, f.c, "Zanzibar budget", 10)
	if len(ms) != 10 || ms[0].Seq != 0 || ms[0].Level != 0 {
		t.Fatalf("first hit %+v of %d, want turn 0", ms[0], len(ms))
	}
	if ms[0].FromTurn != 0 || ms[0].ToTurn != 0 || ms[0].Text != texts[0] {
		t.Errorf("turn 0 hit %+v, want its text and span 0..0", ms[0])
	}
}

// Scores are textutil.BM25 summed over the query terms, with N and the
// average length (tokens) over the conversation.
func TestSearchNodesScoresBM25(t *testing.T) {
	f := newSearchFixture(t)
	texts := []string{
		"user\tapple apple banana",
		"user\tapple cherry cherry cherry date",
		"user\tbanana",
		"user\teggplant",
	}
	f.turns(t, f.acme, f.c, texts...)
	ms := f.search(t, f.acme, f.c, "apple cherry", 10)
	if len(ms) != 2 {
		t.Fatalf("%d hits, want the 2 turns holding apple or cherry", len(ms))
	}
	// Lengths are Tokens: the terms of each turn, "user" included.
	lens := []float64{4, 6, 2, 2}
	avg := (4 + 6 + 2 + 2) / 4.0
	want := map[int]float64{
		0: textutil.BM25(2, 2, 4, lens[0], avg),
		1: textutil.BM25(1, 2, 4, lens[1], avg) + textutil.BM25(3, 1, 4, lens[1], avg),
	}
	if ms[0].Seq != 1 {
		t.Errorf("first hit turn %d, want turn 1 (cherry is rarer)", ms[0].Seq)
	}
	for _, m := range ms {
		if math.Abs(m.Score-want[m.Seq]) > 1e-9 {
			t.Errorf("turn %d scores %.6f, want %.6f", m.Seq, m.Score, want[m.Seq])
		}
	}
}

// A conversation scope holds one conversation; "" holds every one of the
// tenant's and never another tenant's.
func TestSearchNodesScope(t *testing.T) {
	f := newSearchFixture(t)
	c2, theirs := f.chat(t, f.acme), f.chat(t, f.other)
	f.turns(t, f.acme, f.c, "user\tthe launch date is March 3")
	f.turns(t, f.acme, c2, "user\tthe launch moved to April")
	f.turns(t, f.other, theirs, "user\tour launch is secret")
	tests := []struct {
		name    string
		tenant  string
		conv    string
		wantIDs map[string]bool
	}{
		// Every node has its terms after the first two searches.
		{"all of acme's", f.acme, "", map[string]bool{f.c: true, c2: true}},
		{"all of other's", f.other, "", map[string]bool{theirs: true}},
		{"one conversation", f.acme, f.c, map[string]bool{f.c: true}},
		{"other tenant, acme's conversation", f.other, f.c, map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]bool{}
			for _, m := range f.search(t, tt.tenant, tt.conv, "launch", 10) {
				got[m.ConversationID] = true
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantIDs) {
				t.Errorf("conversations %v, want %v", got, tt.wantIDs)
			}
		})
	}
}

// A summary hit names the turns it covers, through its children's
// children; turns stored after a search are found by the next one.
func TestSearchNodesSummarySpanAndNewNodes(t *testing.T) {
	f := newSearchFixture(t)
	ctx := context.Background()
	f.turns(t, f.acme, f.c, "user\tone", "user\ttwo", "user\tthree", "user\tfour", "user\tfive")
	refs, err := f.st.NodeRefs(ctx, f.acme, f.c, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	put := func(level, seq int, text string, children ...int64) int64 {
		n, _, err := f.st.PutSummary(ctx, f.acme, f.c, conversation.NewNode{Level: level, Seq: seq, Text: text, Tokens: 2, ChildIDs: children})
		if err != nil {
			t.Fatal(err)
		}
		return n.ID
	}
	a := put(1, 0, "greeting numbers", refs[0].ID, refs[1].ID)
	b := put(1, 1, "counting numbers", refs[2].ID, refs[3].ID, refs[4].ID)
	put(2, 0, "the whole meeting overview", a, b)
	tests := []struct {
		query    string
		wantLvl  int
		wantFrom int
		wantTo   int
	}{
		{"overview", 2, 0, 4},
		{"counting", 1, 2, 4},
		{"three", 0, 2, 2},
	}
	for _, tt := range tests {
		ms := f.search(t, f.acme, f.c, tt.query, 1)
		if len(ms) != 1 || ms[0].Level != tt.wantLvl || ms[0].FromTurn != tt.wantFrom || ms[0].ToTurn != tt.wantTo {
			t.Errorf("search %q = %+v, want level %d covering turns %d..%d", tt.query, ms, tt.wantLvl, tt.wantFrom, tt.wantTo)
		}
	}
	if _, err := f.st.AppendTurns(ctx, f.acme, f.c, []conversation.NewNode{{Seq: 5, Text: "user\tsix", Tokens: 2}}); err != nil {
		t.Fatal(err)
	}
	if ms := f.search(t, f.acme, f.c, "six", 1); len(ms) != 1 || ms[0].Seq != 5 {
		t.Errorf("a turn stored after a search: %+v, want turn 5", ms)
	}
}

// Terms stored by an earlier tokenizer no longer match the same words in
// a query; the migration that came with each change drops the terms of
// nodes with Hangul and the next search fills them again: 0008 when
// particles came off foreign words ("sync는" had been one term), 0009
// when Hangul spellings of English words became the English word ("테스트"
// had stayed Hangul, so "test" missed it).
func TestRetokenizeMigrationsRefillKoreanTerms(t *testing.T) {
	for _, tc := range []struct {
		migration, korean, english, oldTerms, like, query string
	}{
		{"0008_memory_terms_retokenize.sql", "sync는 다음 주에 고쳐요", "the sync review is done", "{user,sync는,다음,주,고쳐}", "%sync는%", "sync"},
		{"0009_memory_terms_loanwords.sql", "부하 테스트는 17일에 다시 해요", "the load test report is done", "{user,부하,테스트,17일,다시,해}", "%테스트%", "test"},
	} {
		t.Run(tc.migration, func(t *testing.T) {
			f := newSearchFixture(t)
			ctx := context.Background()
			f.turns(t, f.acme, f.c, "user\t"+tc.korean, "user\t"+tc.english)
			if ms := f.search(t, f.acme, f.c, tc.query, 10); len(ms) != 2 {
				t.Fatalf("before: %d hits, want both turns", len(ms))
			}
			// The earlier tokenizer's terms of the Korean turn.
			pool := f.st.Pool()
			if _, err := pool.Exec(ctx, `UPDATE memory_nodes SET terms = $1 WHERE text LIKE $2`, tc.oldTerms, tc.like); err != nil {
				t.Fatal(err)
			}
			if ms := f.search(t, f.acme, f.c, tc.query, 10); len(ms) != 1 {
				t.Fatalf("with the old terms: %d hits, want the English turn only", len(ms))
			}
			sql, err := os.ReadFile("migrations/" + tc.migration)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Exec(ctx, string(sql)); err != nil {
				t.Fatal(err)
			}
			var unindexed int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM memory_nodes WHERE terms IS NULL`).Scan(&unindexed); err != nil || unindexed != 1 {
				t.Fatalf("after the migration: %d nodes without terms (%v), want the Korean one", unindexed, err)
			}
			if ms := f.search(t, f.acme, f.c, tc.query, 10); len(ms) != 2 {
				t.Fatalf("after: %d hits, want both turns", len(ms))
			}
		})
	}
}
