package convmemory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/textutil"
	"github.com/mithub/mithub/pkg/tokens"
)

// window is a small model window so a few QMSum turns overflow it.
const window = 8192

type fixture struct {
	st     *store.Store
	tenant store.Tenant
	count  tokens.Counter
	eng    *convmemory.Engine
	svc    *convmemory.Service
}

func newFixture(t *testing.T, sum convmemory.Summarizer) *fixture {
	t.Helper()
	st := storetest.New(t)
	tenant, err := st.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	eng := convmemory.NewEngine(st, count, sum, convmemory.Config{ContextWindow: window})
	return &fixture{st: st, tenant: tenant, count: count, eng: eng, svc: convmemory.NewService(eng, convmemory.NewInline(eng))}
}

// qmsumTurns returns the spoken turns of the first QMSum training
// meetings, concatenated.
func qmsumTurns(t testing.TB) []qmsum.Turn {
	t.Helper()
	dir := qmsumtest.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "train", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no QMSum meetings in %s: %v", dir, err)
	}
	var out []qmsum.Turn
	for _, file := range files[:3] {
		m, err := qmsum.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range m.Turns {
			if strings.TrimSpace(tr.Content) != "" {
				out = append(out, tr)
			}
		}
	}
	return out
}

// fillChat adds QMSum turns to a new chat until it holds at least
// minTokens, then a Korean exchange, and returns the conversation.
func (f *fixture) fillChat(t *testing.T, minTokens int) conversation.Conversation {
	t.Helper()
	ctx := context.Background()
	c, err := f.svc.StartChat(ctx, f.tenant.ID, "design review")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tr := range qmsumTurns(t) {
		turn, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, tr.Speaker, tr.Content)
		if err != nil {
			t.Fatal(err)
		}
		total += turn.Tokens
		if total >= minTokens {
			break
		}
	}
	if total < minTokens {
		t.Fatalf("meeting too short: %d tokens", total)
	}
	for _, m := range [][2]string{
		{"user", "다음 분기 예산은 GPU 클러스터 증설에 우선 배정하기로 결정했습니다."},
		{"assistant", "알겠습니다. 예산 배정 결과를 회의록에 기록하겠습니다."},
	} {
		if _, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, m[0], m[1]); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestCompressBringsALongChatUnderTheTarget(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	ctx := context.Background()
	c := f.fillChat(t, 30_000)

	before, err := f.svc.ShouldCompress(ctx, f.tenant.ID, c.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !before.ShouldCompress || before.CurrentTokens <= window*7/10 {
		t.Fatalf("before compressing: %+v, want should_compress over 70%% of %d", before, window)
	}
	if _, err := f.svc.Compress(ctx, f.tenant.ID, c.ID, 0); err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.Stats(ctx, f.tenant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	target := f.svc.TargetTokens(0)
	if st.LiveTokens > target || st.Levels < 2 || st.SummaryNodes[1] != st.Chunks {
		t.Fatalf("after compressing: %+v, want live <= %d with merges", st, target)
	}
	after, err := f.svc.ShouldCompress(ctx, f.tenant.ID, c.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after.ShouldCompress {
		t.Errorf("still should compress: %+v", after)
	}

	got, err := f.svc.Context(ctx, f.tenant.ID, c.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tokens > target || got.Truncated || got.Summaries == 0 || got.RecentTurns == 0 {
		t.Fatalf("context: %d tokens (target %d), %d summaries, %d recent turns, truncated %v",
			got.Tokens, target, got.Summaries, got.RecentTurns, got.Truncated)
	}
	first, last := got.Items[0], got.Items[len(got.Items)-1]
	if first.FromTurn != 0 || last.ToTurn != st.Turns-1 || last.Kind != "turn" {
		t.Errorf("context spans turns %d..%d ending in a %s, want 0..%d ending in a turn", first.FromTurn, last.ToTurn, last.Kind, st.Turns-1)
	}
	if !strings.Contains(got.Text(), "회의록") {
		t.Errorf("the most recent (Korean) turn is missing from the context text")
	}
	sum := 0
	for _, it := range got.Items {
		sum += it.Tokens
	}
	if sum != got.Tokens {
		t.Errorf("items add up to %d tokens, context says %d", sum, got.Tokens)
	}
}

func TestSearchFindsKoreanAndEnglish(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	ctx := context.Background()
	c := f.fillChat(t, 1500)
	tests := []struct {
		give     string
		wantText string
	}{
		{"GPU 클러스터 예산은?", "GPU 클러스터"},
		{"회의록에 기록", "회의록"},
		{"GPU", "GPU"},
	}
	for _, tt := range tests {
		hits, err := f.svc.Search(ctx, f.tenant.ID, c.ID, tt.give, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || !strings.Contains(hits[0].Text, tt.wantText) {
			t.Errorf("Search(%q) = %+v, want a first hit containing %q", tt.give, hits, tt.wantText)
		}
	}
	// Every hit of an English QMSum word holds it.
	word := textutil.Terms(nil, qmsumTurns(t)[3].Content)[0]
	hits, err := f.svc.Search(ctx, f.tenant.ID, "", word, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if !slices.Contains(textutil.Terms(nil, h.Text), word) {
			t.Errorf("hit %q does not hold %q", h.Text, word)
		}
	}
}

// recording wraps a summarizer, records every unit it is asked for (by
// its first input) and fails after failAfter calls when failAfter > 0.
type recording struct {
	convmemory.Summarizer
	failAfter int

	mu    sync.Mutex
	calls map[string]int
	n     int
}

var errStop = errors.New("stop")

func (r *recording) note(key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failAfter > 0 && r.n >= r.failAfter {
		return errStop
	}
	r.n++
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[key]++
	return nil
}

func (r *recording) SummarizeChunk(ctx context.Context, turns []convmemory.Turn) (string, error) {
	if err := r.note(fmt.Sprintf("chunk@%d", turns[0].Seq)); err != nil {
		return "", err
	}
	return r.Summarizer.SummarizeChunk(ctx, turns)
}

func (r *recording) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	if err := r.note("merge:" + strings.Join(parts, "|")); err != nil {
		return "", err
	}
	return r.Summarizer.MergeSummaries(ctx, parts)
}

func TestCompressResumesWithoutRedoingFinishedNodes(t *testing.T) {
	first := &recording{Summarizer: convmemory.NewLocal(), failAfter: 7}
	f := newFixture(t, first)
	ctx := context.Background()
	c := f.fillChat(t, 30_000)
	if _, err := f.svc.Compress(ctx, f.tenant.ID, c.ID, 0); !errors.Is(err, errStop) {
		t.Fatalf("first run: %v, want it to stop", err)
	}
	refs, err := f.st.NodeRefs(ctx, f.tenant.ID, c.ID, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) == 0 || len(refs) > 7 {
		t.Fatalf("first run stored %d nodes, want 1..7", len(refs))
	}

	second := &recording{Summarizer: convmemory.NewLocal()}
	eng := convmemory.NewEngine(f.st, f.count, second, convmemory.Config{ContextWindow: window})
	svc := convmemory.NewService(eng, convmemory.NewInline(eng))
	job, err := svc.Compress(ctx, f.tenant.ID, c.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Progress(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Done || !p.Fits {
		t.Fatalf("resumed run did not finish: %+v", p)
	}
	for key := range first.calls {
		if strings.HasPrefix(key, "chunk@") && second.calls[key] > 0 {
			t.Errorf("%s summarised again after the restart", key)
		}
	}
	if second.n != p.UnitsPlanned()-len(refs) {
		t.Errorf("resumed run made %d calls, want %d planned - %d done", second.n, p.UnitsPlanned(), len(refs))
	}
	// Every node stored by the first run is still the same row.
	after, err := f.st.NodeRefs(ctx, f.tenant.ID, c.ID, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for _, r := range after {
		ids[r.ID] = true
	}
	for _, r := range refs {
		if !ids[r.ID] {
			t.Errorf("node %d/%d (id %d) was replaced", r.Level, r.Seq, r.ID)
		}
	}
}

func TestMeetingConversationFollowsTranscripts(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	ctx := context.Background()
	m, err := f.st.CreateMeeting(ctx, f.tenant.ID, store.NewMeeting{Title: "주간 회의"})
	if err != nil {
		t.Fatal(err)
	}
	ingest := func(from, to int) {
		var us []store.Utterance
		for i := from; i < to; i++ {
			text := fmt.Sprintf("안건 %d: release plan item %d", i, i)
			us = append(us, store.Utterance{SegmentID: fmt.Sprint("s", i), SpeakerName: "Kim", Text: text, Tokens: f.count.Count(text)})
		}
		if _, err := f.st.Ingest(ctx, f.tenant.ID, m.ID, us); err != nil {
			t.Fatal(err)
		}
	}
	ingest(0, 10)
	c, err := f.svc.StartMeeting(ctx, f.tenant.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.StartMeeting(ctx, f.tenant.ID, m.ID)
	if err != nil || again.ID != c.ID || c.Title != "주간 회의" {
		t.Fatalf("StartMeeting twice: %v %v %q", err, again.ID == c.ID, c.Title)
	}
	ingest(10, 25)
	st, err := f.svc.Stats(ctx, f.tenant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Turns != 25 {
		t.Errorf("turns = %d, want the 25 transcripts", st.Turns)
	}
	if _, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, "user", "hi"); !errors.Is(err, convmemory.ErrNotChat) {
		t.Errorf("AddMessage to a meeting: %v, want ErrNotChat", err)
	}
	x, err := f.svc.Export(ctx, f.tenant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Turns) != 25 || x.Turns[24].Speaker != "Kim" || !strings.Contains(x.Markdown(), "안건 24") {
		t.Errorf("export: %d turns, markdown:\n%s", len(x.Turns), x.Markdown())
	}
}

func TestBadInputIsRejected(t *testing.T) {
	f := newFixture(t, convmemory.NewLocal())
	ctx := context.Background()
	c, err := f.svc.StartChat(ctx, f.tenant.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.st.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"empty content", func() error { _, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, "user", "  "); return err }, convmemory.ErrInvalid},
		{"no role", func() error { _, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, "", "x"); return err }, convmemory.ErrInvalid},
		{"invalid utf-8", func() error { _, err := f.svc.AddMessage(ctx, f.tenant.ID, c.ID, "user", "a\xffb"); return err }, convmemory.ErrInvalid},
		{"not a uuid", func() error { _, err := f.svc.AddMessage(ctx, f.tenant.ID, "abc", "user", "x"); return err }, convmemory.ErrInvalid},
		{"unknown conversation", func() error {
			_, err := f.svc.Stats(ctx, f.tenant.ID, "00000000-0000-0000-0000-000000000000")
			return err
		}, convmemory.ErrNotFound},
		{"another tenant's", func() error { _, err := f.svc.AddMessage(ctx, other.ID, c.ID, "user", "x"); return err }, convmemory.ErrNotFound},
		{"negative budget", func() error { _, err := f.svc.Context(ctx, f.tenant.ID, c.ID, -1); return err }, convmemory.ErrInvalid},
		{"query without words", func() error { _, err := f.svc.Search(ctx, f.tenant.ID, c.ID, "?!", 3); return err }, convmemory.ErrInvalid},
		{"k too large", func() error { _, err := f.svc.Search(ctx, f.tenant.ID, c.ID, "plan", 1000); return err }, convmemory.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	st, err := f.svc.Stats(ctx, f.tenant.ID, c.ID)
	if err != nil || st.Turns != 0 {
		t.Errorf("bad input changed the conversation: %+v %v", st, err)
	}
}
