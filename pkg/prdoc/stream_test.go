package prdoc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
)

// streamFixtures are meetings the streamed path must extract exactly as
// the in-memory one: a short bilingual meeting with topics and a tail, and
// longer meetings — the repository's example meeting, and six QMSum val
// meetings when the data is there (seq = turn index, so empty turns leave
// gaps) — each with no topics (all segmented as a tail), topics over its
// first half, and one topic over all of it (refined into sub-items).
func streamFixtures(t *testing.T) map[string]prdoc.Input {
	t.Helper()
	fx := map[string]prdoc.Input{}
	short := turns(
		"Alice: Welcome, today we plan the release and the onboarding flow.",
		"민수: 배포는 다음 주 월요일로 하기로 했습니다.",
		"Alice: Can you prepare the release notes by Friday?",
		"Bob: Sure, I'll send them to everyone on Thursday.",
		"지영: 고객 계정 마이그레이션 방법은 아직 결정되지 않았습니다.",
		"Alice: What should the onboarding email say about pricing?",
		"Bob: Next time we should have the pricing page ready before the review.",
		"민수: 제가 온보딩 문서를 금요일까지 정리하겠습니다.",
		"지영: 다음에는 디자인 검토를 더 일찍 시작해야 합니다.",
		"Alice: We decided to keep the free tier for students.",
		"Bob: Who owns the analytics dashboard after launch?",
		"민수: 대시보드는 지영 님이 맡아 주세요.",
	)
	fx["short"] = prdoc.Input{MeetingID: "m-short", MeetingTitle: "Release sync", Date: wednesday, Turns: short,
		Topics: []prdoc.Topic{{ID: "t-1", Title: "Release", Keywords: []string{"release"}, StartSeq: 0, EndSeq: 4}}}
	fx["short-untitled"] = prdoc.Input{MeetingID: "m-short", Turns: short}

	add := func(name string, ts []prdoc.Turn) {
		last := ts[len(ts)-1].Seq
		var half []prdoc.Topic
		for s := 0; s < last/2; s += 60 {
			half = append(half, prdoc.Topic{ID: fmt.Sprintf("t-%d", s), Title: fmt.Sprintf("Topic %d", s), Summary: "about " + name,
				Keywords: []string{"meeting"}, StartSeq: s, EndSeq: s + 59})
		}
		fx[name+"/tail"] = prdoc.Input{MeetingID: name, MeetingTitle: name, Date: wednesday, Turns: ts}
		fx[name+"/half"] = prdoc.Input{MeetingID: name, MeetingTitle: name, Date: wednesday, Turns: ts, Topics: half}
		fx[name+"/one"] = prdoc.Input{MeetingID: name, Date: wednesday, Turns: ts,
			Topics: []prdoc.Topic{{ID: "all", Title: "Everything", StartSeq: 0, EndSeq: last + 10}}}
	}

	// The repository's bilingual example meeting, always.
	utts, err := qmsum.LoadJSONL("../../examples/meetings/launch-review.jsonl", "lr")
	if err != nil {
		t.Fatal(err)
	}
	var lr []prdoc.Turn
	for i, u := range utts {
		lr = append(lr, prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS})
	}
	add("launch-review", lr)

	// Six QMSum val meetings when the data is there.
	dir, ok := qmsumtest.Optional(t)
	if !ok {
		return fx
	}
	paths, err := filepath.Glob(filepath.Join(dir, "val", "*.json"))
	if err != nil || len(paths) < 6 {
		t.Fatalf("QMSum val: %v (%d files)", err, len(paths))
	}
	for _, p := range paths[:6] {
		m, err := qmsum.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		var ts []prdoc.Turn
		for k, u := range qmsum.Utterances(m, "m") {
			seq := qmsum.SpokenTurns(m)[k]
			ts = append(ts, prdoc.Turn{ID: int64(seq + 1), Seq: seq, Speaker: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS})
		}
		add(strings.TrimSuffix(filepath.Base(p), ".json"), ts)
	}
	return fx
}

func docJSON(t *testing.T, d prdoc.Document) string {
	t.Helper()
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + prdoc.Markdown(d)
}

func streamOf(in prdoc.Input) prdoc.StreamInput {
	return prdoc.StreamInput{MeetingID: in.MeetingID, MeetingTitle: in.MeetingTitle, Date: in.Date, Topics: in.Topics, Turns: prdoc.TurnsSource(in.Turns)}
}

// The streamed local extractor builds exactly the in-memory document.
func TestLocalExtractStreamEqualsExtract(t *testing.T) {
	ctx := context.Background()
	x := prdoc.NewLocal()
	items := 0
	for name, in := range streamFixtures(t) {
		want, err := x.Extract(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.ExtractStream(ctx, streamOf(in))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := docJSON(t, got), docJSON(t, want); g != w {
			t.Errorf("%s: streamed document differs\n--- streamed\n%s\n--- in memory\n%s", name, g, w)
		}
		items += len(want.Decisions) + len(want.ActionItems) + len(want.OpenQuestions)
		if len(want.Agenda) == 0 {
			t.Errorf("%s: empty agenda", name)
		}
	}
	if items < 100 {
		t.Errorf("fixtures yield %d items in all, too few to compare", items)
	}
}

// Turns out of seq order, and a source that fails, are errors.
func TestExtractStreamSourceErrors(t *testing.T) {
	ctx := context.Background()
	ts := turns("Alice: one two three four", "Bob: five six seven eight")
	ts[0].Seq, ts[1].Seq = 5, 5
	_, err := prdoc.NewLocal().ExtractStream(ctx, prdoc.StreamInput{Turns: prdoc.TurnsSource(ts)})
	if err == nil || !strings.Contains(err.Error(), "seq order") {
		t.Errorf("repeated seq: err %v, want a seq order error", err)
	}
	boom := errors.New("database went away")
	calls := 0
	src := func(ctx context.Context, fn func(prdoc.Turn) error) error {
		calls++
		if calls == 2 {
			return boom
		}
		return prdoc.TurnsSource(turns("Alice: we decided to ship on Friday"))(ctx, fn)
	}
	if _, err := prdoc.NewLocal().ExtractStream(ctx, prdoc.StreamInput{Turns: src}); !errors.Is(err, boom) {
		t.Errorf("failing second read: err %v, want %v", err, boom)
	}
	d, err := prdoc.NewLocal().ExtractStream(ctx, prdoc.StreamInput{MeetingID: "m", Turns: prdoc.TurnsSource(nil)})
	if err != nil || len(d.Agenda) != 0 || d.Decisions == nil {
		t.Errorf("no turns: %+v %v, want an empty document", d, err)
	}
}

// An agenda item longer than RefineWindowTurns is refined a window at a
// time: the streamed agenda still tiles every turn, keeps the topic's id,
// and has an item boundary at the window's end.
func TestExtractStreamRefinesLongItemsInWindows(t *testing.T) {
	n := prdoc.RefineWindowTurns + 600
	words := []string{"budget", "release", "hiring", "배포", "예산", "채용"}
	ts := make([]prdoc.Turn, n)
	for i := range ts {
		w := words[i/700%len(words)]
		ts[i] = prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: []string{"Alice", "민수", "Bob"}[i%3],
			Text: fmt.Sprintf("%s plan %s review %d", w, w, i%5), StartMS: int64(i) * 6000, EndMS: int64(i)*6000 + 5000}
	}
	d, err := prdoc.NewLocal().ExtractStream(context.Background(), prdoc.StreamInput{
		MeetingID: "m-long", Date: wednesday, Turns: prdoc.TurnsSource(ts),
		Topics: []prdoc.Topic{{ID: "all", Title: "Everything", StartSeq: 0, EndSeq: n - 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	next, cut := 0, false
	for _, a := range d.Agenda {
		if a.StartSeq != next || a.EndSeq < a.StartSeq || a.TopicID != "all" {
			t.Fatalf("item %+v: want it to start at %d, with topic id all", a, next)
		}
		if a.EndSeq == prdoc.RefineWindowTurns-1 {
			cut = true
		}
		next = a.EndSeq + 1
	}
	if next != n {
		t.Errorf("agenda ends at %d, want %d", next-1, n-1)
	}
	if !cut || len(d.Agenda) < 3 {
		t.Errorf("%d items, cut at the window end %v; want sub-items and a cut at seq %d", len(d.Agenda), cut, prdoc.RefineWindowTurns-1)
	}
}
