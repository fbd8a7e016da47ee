package transcriptfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/qmsum"
)

const zoomVTT = `WEBVTT

1
00:00:01.020 --> 00:00:04.500
Kim Jihyun: Let's start with the beta results.

2
00:00:05.000 --> 00:00:09.250
David Park: Crash-free sessions are at 99.2%,
up from last week.

3
00:01:10.000 --> 00:01:12.000
Kim Jihyun: Good. 좋아요.
`

const teamsVTT = "\ufeffWEBVTT\r\n\r\nNOTE exported by Teams\r\nsecond note line\r\n\r\n" +
	"0f1d2c3b-aaaa-4bbb-8ccc-000000000001/12-0\r\n00:00:01.000 --> 00:00:03.000\r\n<v Priya Raman>We need a staged rollout.</v>\r\n\r\n" +
	"0f1d2c3b-aaaa-4bbb-8ccc-000000000001/13-0\r\n00:00:03.500 --> 00:00:06.000 align:start position:10%\r\n<v.loud Lee Seoyeon>iOS &amp; Android are <b>ready</b>.</v>\r\n\r\n"

const meetVTT = `WEBVTT
Kind: captions
Language: en

00:00.500 --> 00:02.000
Unattributed caption line

00:02.500 --> 00:04.000
<v Alex>Second line</v>
`

const sampleSRT = `1
00:00:01,000 --> 00:00:02,500
Kim Jihyun: Shall we ship on the 20th?

2
00:00:03,000 --> 00:00:05,000
David Park: Yes, if QA signs off.
`

func read(t *testing.T, f Format, s string) []Segment {
	t.Helper()
	segs, err := ReadAll(strings.NewReader(s), f)
	if err != nil {
		t.Fatalf("read %s: %v", f, err)
	}
	return segs
}

func TestReadZoomVTT(t *testing.T) {
	segs := read(t, VTT, zoomVTT)
	if len(segs) != 3 {
		t.Fatalf("got %d segments, want 3: %+v", len(segs), segs)
	}
	want := Segment{SpeakerName: "David Park", SpeakerID: "david-park",
		Text: "Crash-free sessions are at 99.2%, up from last week.", StartMS: 5000, EndMS: 9250, Confidence: 1}
	got := segs[1]
	got.ID, got.Line = "", 0
	if got != want {
		t.Errorf("segment 1 = %+v, want %+v", got, want)
	}
	if segs[1].Line != 8 {
		t.Errorf("segment 1 is on line %d, want 8 (its timing line)", segs[1].Line)
	}
	if segs[2].StartMS != 70_000 || segs[2].Text != "Good. 좋아요." || segs[2].SpeakerName != "Kim Jihyun" {
		t.Errorf("segment 2 = %+v", segs[2])
	}
}

func TestReadTeamsVTTVoiceTags(t *testing.T) {
	segs := read(t, VTT, teamsVTT)
	if len(segs) != 2 {
		t.Fatalf("got %d segments: %+v", len(segs), segs)
	}
	if segs[0].SpeakerName != "Priya Raman" || segs[0].Text != "We need a staged rollout." {
		t.Errorf("segment 0 = %+v", segs[0])
	}
	if segs[1].SpeakerName != "Lee Seoyeon" || segs[1].Text != "iOS & Android are ready." || segs[1].StartMS != 3500 || segs[1].EndMS != 6000 {
		t.Errorf("segment 1 = %+v", segs[1])
	}
}

func TestReadMeetVTTShortTimestamps(t *testing.T) {
	segs := read(t, VTT, meetVTT)
	if len(segs) != 2 {
		t.Fatalf("got %d segments: %+v", len(segs), segs)
	}
	if segs[0].SpeakerName != "Unknown" || segs[0].StartMS != 500 || segs[0].EndMS != 2000 {
		t.Errorf("segment 0 = %+v", segs[0])
	}
	if segs[1].SpeakerName != "Alex" || segs[1].Text != "Second line" {
		t.Errorf("segment 1 = %+v", segs[1])
	}
}

func TestReadSRT(t *testing.T) {
	segs := read(t, SRT, sampleSRT)
	if len(segs) != 2 || segs[1].SpeakerName != "David Park" || segs[1].Text != "Yes, if QA signs off." ||
		segs[1].StartMS != 3000 || segs[1].EndMS != 5000 {
		t.Fatalf("got %+v", segs)
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Format
		in   string
		line int
		msg  string
	}{
		{"no header", VTT, "1\n00:00:01.000 --> 00:00:02.000\nhi\n", 1, "WEBVTT"},
		{"bad timing", VTT, "WEBVTT\n\n1\n00:00:01.000 --> 00:0x:02.000\nhi\n", 4, "end time"},
		{"end before start", VTT, "WEBVTT\n\n00:00:05.000 --> 00:00:02.000\nhi\n", 3, "before start"},
		{"no timing after id", SRT, "1\n00:00:01,000 --> 00:00:02,000\nhi\n\n2\nnot a timing\n", 6, "timing line"},
		{"jsonl unknown field", JSONL, `{"speaker_name":"A","text":"x","start_ms":0,"end_ms":1}` + "\n\n" + `{"speaker_name":"A","text":"x","start_ms":0,"end_ms":1,"bogus":1}` + "\n", 3, "bogus"},
		{"jsonl missing text", JSONL, `{"speaker_name":"A","start_ms":0,"end_ms":1}`, 1, "text is required"},
		{"jsonl duplicate id", JSONL, `{"segment_id":"a","speaker_name":"A","text":"x","start_ms":0,"end_ms":1}` + "\n" + `{"segment_id":"a","speaker_name":"A","text":"y","start_ms":0,"end_ms":1}`, 2, "line 1"},
		{"qmsum syntax", QMSum, "{\n  \"meeting_transcripts\": [\n    {\"speaker\": \"A\", \"content\": \"x\"},\n    {\"speaker\": \"A\" \"content\": \"y\"}\n  ]\n}\n", 4, "meeting_transcripts"},
		{"qmsum no array", QMSum, "{\n\"topic_list\": []\n}\n", 3, "no meeting_transcripts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(strings.NewReader(tc.in), tc.f)
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LineError", err)
			}
			if le.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v (line %d), want line %d mentioning %q", err, le.Line, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("line %d: ", tc.line)) {
				t.Fatalf("err = %q does not start with its line", err)
			}
		})
	}
}

func TestReadJSONLMatchesReplay(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "meetings", "launch-review.jsonl")
	want, err := qmsum.LoadJSONL(path, "x")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadAll(f, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d segments, want %d", len(got), len(want))
	}
	for i := range got {
		w := want[i]
		g := got[i]
		if g.SpeakerName != w.SpeakerName || g.SpeakerID != w.SpeakerID || g.Text != w.Text || g.StartMS != w.StartMS || g.EndMS != w.EndMS {
			t.Fatalf("segment %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestReadQMSumMatchesUtterances(t *testing.T) {
	src := `{"topic_list":[{"topic":"t","relevant_text_span":[["0","2"]]}],
"meeting_transcripts":[
 {"speaker":"Grad E","content":"So we should start ."},
 {"speaker":"PhD A","content":""},
 {"speaker":"Professor B","content":"Okay , the budget is fine ."}
],"specific_query_list":[],"general_query_list":[]}`
	m, err := qmsum.Parse(strings.NewReader(src), "m")
	if err != nil {
		t.Fatal(err)
	}
	want := qmsum.Utterances(m, "m")
	got := read(t, QMSum, src)
	if len(got) != len(want) {
		t.Fatalf("got %d segments, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Text != want[i].Text || got[i].StartMS != want[i].StartMS || got[i].EndMS != want[i].EndMS || got[i].SpeakerID != want[i].SpeakerID {
			t.Fatalf("segment %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestIDsAreStableAndDistinct(t *testing.T) {
	in := "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nA: yes\n\n00:00:01.000 --> 00:00:02.000\nA: yes\n\n00:00:03.000 --> 00:00:04.000\nA: yes\n"
	a := read(t, VTT, in)
	b := read(t, VTT, in)
	seen := map[string]bool{}
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Fatalf("id %d differs between reads: %s, %s", i, a[i].ID, b[i].ID)
		}
		if seen[a[i].ID] {
			t.Fatalf("id %s repeated", a[i].ID)
		}
		seen[a[i].ID] = true
	}
	if a[1].ID != a[0].ID+"-2" {
		t.Errorf("repeat id = %s, want %s-2", a[1].ID, a[0].ID)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	segs := read(t, VTT, zoomVTT+"\n4\n00:02:00.000 --> 01:02:03.004\nDavid Park: a < b & c > d\n")
	for _, f := range []Format{VTT, SRT, JSONL} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, f, Meta{Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range segs {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		back := read(t, f, buf.String())
		if len(back) != len(segs) {
			t.Fatalf("%s: got %d segments back, want %d:\n%s", f, len(back), len(segs), buf.String())
		}
		for i := range segs {
			g, w := back[i], segs[i]
			if g.SpeakerName != w.SpeakerName || g.Text != w.Text || g.StartMS != w.StartMS || g.EndMS != w.EndMS {
				t.Fatalf("%s: segment %d = %+v, want %+v", f, i, g, w)
			}
			if f == JSONL && g.ID != w.ID {
				t.Fatalf("jsonl keeps ids: got %s, want %s", g.ID, w.ID)
			}
		}
		if Sniff(buf.Bytes()) != f {
			t.Errorf("Sniff(%s output) = %q", f, Sniff(buf.Bytes()))
		}
	}
}

func TestWriteMarkdownAndJSON(t *testing.T) {
	segs := read(t, SRT, sampleSRT)
	var md, js bytes.Buffer
	for _, tc := range []struct {
		f   Format
		buf *bytes.Buffer
	}{{Markdown, &md}, {JSON, &js}} {
		w, _ := NewWriter(tc.buf, tc.f, Meta{MeetingID: "m1", Title: "Launch", StartedAt: time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)})
		for _, s := range segs {
			w.Write(s)
		}
		w.Close()
	}
	if !strings.Contains(md.String(), "# Launch\n") || !strings.Contains(md.String(), "**[00:00:03] David Park:** Yes, if QA signs off.") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if !strings.Contains(js.String(), `"started_at":"2026-03-12T09:00:00Z","segments":[`) || !bytes.HasSuffix(js.Bytes(), []byte("]}\n")) {
		t.Errorf("json:\n%s", js.String())
	}
}

// vttGenerator produces a WebVTT file of n bytes or more, cue by cue,
// without holding it.
type vttGenerator struct {
	limit, n int64
	i        int
	buf      []byte
}

func (g *vttGenerator) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.n >= g.limit {
			return 0, io.EOF
		}
		if g.i == 0 {
			g.buf = []byte("WEBVTT\n\n")
		} else {
			ms := int64(g.i) * 1000
			g.buf = fmt.Appendf(nil, "%d\n%s --> %s\nSpeaker %d: turn %d of a long meeting, with enough words to be a real sentence.\n\n",
				g.i, timestamp(ms, "."), timestamp(ms+900, "."), g.i%7, g.i)
		}
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.n += int64(n)
	return n, nil
}

func TestFiftyMegabytesStream(t *testing.T) {
	const size = 50 << 20
	gen := &vttGenerator{limit: size}
	r, err := Open(gen, VTT)
	if err != nil {
		t.Fatal(err)
	}
	ids := NewIDs()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	n := 0
	for {
		s, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids.Assign(s)
		n++
		if n%50_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if gen.n < size {
		t.Fatalf("read %d bytes, want %d", gen.n, size)
	}
	// The id deriver keeps a few bytes per segment; the file itself is
	// never held.
	grew := int64(peak) - int64(base)
	t.Logf("%d segments from %d MB; heap grew by at most %.1f MB", n, size>>20, float64(grew)/(1<<20))
	if grew > 24<<20 {
		t.Fatalf("heap grew by %d bytes reading a %d-byte file: it is not streamed", grew, size)
	}
}
