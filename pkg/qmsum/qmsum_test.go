package qmsum

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/testenv"
)

// dataDir returns the QMSum data directory; the data ships beside the
// repository, so its absence fails the test.
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := DataDir()
	if err != nil {
		testenv.Missing(t, "needs the QMSum data: %v", err)
	}
	return dir
}

func TestLoadBed002(t *testing.T) {
	m, err := Load(filepath.Join(dataDir(t), "val", "Bed002.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Bed002" || len(m.Turns) != 533 {
		t.Fatalf("name %q with %d turns, want Bed002 with 533", m.Name, len(m.Turns))
	}
	if want := (Turn{Speaker: "Grad E", Content: "I guess ."}); m.Turns[0] != want {
		t.Errorf("turn 0 = %+v, want %+v", m.Turns[0], want)
	}
	if len(m.Topics) < 2 || m.Topics[0].Topic != "Setting up recording equipment and explaining its use" {
		t.Fatalf("topics = %+v", m.Topics)
	}
	if !reflect.DeepEqual(m.Topics[0].Spans, []Span{{0, 90}}) || !reflect.DeepEqual(m.Topics[1].Spans, []Span{{91, 288}}) {
		t.Errorf("first topic spans = %v, %v", m.Topics[0].Spans, m.Topics[1].Spans)
	}
	if len(m.SpecificQueries) == 0 || !reflect.DeepEqual(m.SpecificQueries[0].Spans, []Span{{0, 90}}) ||
		m.SpecificQueries[0].Answer == "" {
		t.Errorf("specific queries = %+v", m.SpecificQueries)
	}
	if len(m.GeneralQueries) == 0 || m.GeneralQueries[0].Query == "" || m.GeneralQueries[0].Answer == "" {
		t.Errorf("general queries = %+v", m.GeneralQueries)
	}
}

func TestUtterancesBed002(t *testing.T) {
	m, err := Load(filepath.Join(dataDir(t), "val", "Bed002.json"))
	if err != nil {
		t.Fatal(err)
	}
	utts := Utterances(m, "bed002")
	// Turns 256, 265 and 447 have no text.
	if len(utts) != 530 {
		t.Fatalf("%d utterances, want 530", len(utts))
	}
	if utts[255].SegmentID != "bed002-00255" || utts[256].SegmentID != "bed002-00257" {
		t.Errorf("ids around the empty turn 256 = %q, %q", utts[255].SegmentID, utts[256].SegmentID)
	}
	first := utts[0]
	if first.SegmentID != "bed002-00000" || first.SpeakerID != "grad-e" || first.SpeakerName != "Grad E" ||
		first.Text != "I guess ." || first.StartMS != 0 || first.EndMS != 800 || first.Confidence != 1 {
		t.Errorf("first utterance = %+v", first)
	}
	if last := utts[len(utts)-1]; last.SegmentID != "bed002-00532" {
		t.Errorf("last segment id = %q", last.SegmentID)
	}
	for i := 1; i < len(utts); i++ {
		if utts[i].StartMS != utts[i-1].EndMS+300 || utts[i].EndMS <= utts[i].StartMS {
			t.Fatalf("utterance %d times %d..%d after %d..%d", i, utts[i].StartMS, utts[i].EndMS,
				utts[i-1].StartMS, utts[i-1].EndMS)
		}
	}
	if again := Utterances(m, "bed002"); !reflect.DeepEqual(again, utts) {
		t.Error("Utterances is not deterministic")
	}
}

func TestParseSpans(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		want    []Span
		wantErr string
	}{
		{name: "strings", give: `[["0","1"],["2","2"]]`, want: []Span{{0, 1}, {2, 2}}},
		{name: "numbers", give: `[[0, 2]]`, want: []Span{{0, 2}}},
		{name: "one element", give: `[["1"]]`, wantErr: "topic_list[0]: relevant_text_span[0]: want [start, end], got 1 elements"},
		{name: "not a number", give: `[["0","1"],["a","2"]]`, wantErr: `relevant_text_span[1]: start: turn index "a" is not an integer`},
		{name: "reversed", give: `[["2","1"]]`, wantErr: "start 2 after end 1"},
		{name: "beyond the end", give: `[["0","3"]]`, wantErr: "end 3 beyond the last turn 2"},
		{name: "negative", give: `[["-1","1"]]`, wantErr: "turn index -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"meeting_transcripts":[{"speaker":"A","content":"x"},{"speaker":"B","content":"y"},{"speaker":"A","content":"z"}],
				"topic_list":[{"topic":"t","relevant_text_span":` + tt.give + `}],"specific_query_list":[],"general_query_list":[]}`
			m, err := Parse(strings.NewReader(doc), "m")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Topics[0].Spans, tt.want) {
				t.Errorf("spans = %v, want %v", m.Topics[0].Spans, tt.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(`{"meeting_transcripts":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badQuery := filepath.Join(dir, "bad.json")
	doc := `{"meeting_transcripts":[{"speaker":"A","content":"x"}],"topic_list":[],
		"specific_query_list":[{"query":"q","answer":"a","relevant_text_span":[["0","1"]]}]}`
	if err := os.WriteFile(badQuery, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		give    string
		wantErr string
	}{
		{give: filepath.Join(dir, "missing.json"), wantErr: "no such file"},
		{give: empty, wantErr: "no meeting_transcripts"},
		{give: badQuery, wantErr: "bad.json: specific_query_list[0]: relevant_text_span[0]: end 1 beyond the last turn 0"},
	}
	for _, tt := range tests {
		if _, err := Load(tt.give); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Load(%s) err = %v, want %q", filepath.Base(tt.give), err, tt.wantErr)
		}
	}
}

func TestUtterancesSkipsEmptyTurns(t *testing.T) {
	m := &Meeting{Turns: []Turn{
		{Speaker: "Professor B", Content: "OK so {vocalsound} let's go ."},
		{Speaker: "PhD A", Content: "  "},
		{Speaker: "PhD A", Content: "Yeah ."},
	}}
	utts := Utterances(m, "x")
	if len(utts) != 2 {
		t.Fatalf("%d utterances, want 2", len(utts))
	}
	if utts[0].EndMS != 5*400 {
		t.Errorf("first end = %d, want 2000 (5 words)", utts[0].EndMS)
	}
	if utts[1].SegmentID != "x-00002" || utts[1].SpeakerID != "phd-a" || utts[1].StartMS != 2300 || utts[1].EndMS != 2700 {
		t.Errorf("second utterance = %+v", utts[1])
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ give, want string }{
		{give: "Grad E", want: "grad-e"},
		{give: "Julie Morgan AM", want: "julie-morgan-am"},
		{give: "  Dr. O'Neil (chair) ", want: "dr-o-neil-chair"},
		{give: "김 민수", want: "김-민수"},
		{give: "Bed002", want: "bed002"},
		{give: "--", want: "unknown"},
	}
	for _, tt := range tests {
		if got := Slug(tt.give); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestLoadAllValidationMeetings(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(dataDir(t), "val", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("glob: %v (%d files)", err, len(paths))
	}
	for _, p := range paths {
		m, err := Load(p)
		if err != nil {
			t.Errorf("Load: %v", err)
			continue
		}
		utts := Utterances(m, Slug(m.Name))
		if len(utts) == 0 || len(utts) > len(m.Turns) {
			t.Errorf("%s: %d utterances from %d turns", m.Name, len(utts), len(m.Turns))
		}
	}
}

// TestUtterancesKoreanTiming: Hangul words take 200 ms per syllable (300
// syllables per minute), other words 400 ms (150 words per minute), so a
// Korean turn is not timed like a run of long English words.
func TestUtterancesKoreanTiming(t *testing.T) {
	m := &Meeting{Turns: []Turn{
		{Speaker: "가", Content: "다음 안건으로 넘어가겠습니다."},   // 2 + 4 + 7 syllables
		{Speaker: "나", Content: "네, API 배포는 QA 이후로."}, // 1 + 3 + 3 syllables, 2 words
		{Speaker: "가", Content: "."},                  // no word: the 400 ms floor
	}}
	utts := Utterances(m, "k")
	want := [][2]int64{{0, 13 * 200}, {13*200 + 300, 13*200 + 300 + 7*200 + 2*400}}
	for i, w := range want {
		if utts[i].StartMS != w[0] || utts[i].EndMS != w[1] {
			t.Errorf("utterance %d: %d-%d ms, want %d-%d", i, utts[i].StartMS, utts[i].EndMS, w[0], w[1])
		}
	}
	if d := utts[2].EndMS - utts[2].StartMS; d != 400 {
		t.Errorf("utterance without words lasts %d ms, want 400", d)
	}
}
