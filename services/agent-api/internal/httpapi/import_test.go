package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/tasks"
)

// importVTT is a Zoom-style export: numbered cues, "Speaker: text" lines,
// enough turns for L1 to cut a chunk.
func importVTT(turns int) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	speakers := []string{"Kim Jihyun", "David Park", "이서연"}
	lines := []string{
		"Let's review the beta results before we decide the launch date.",
		"Crash-free sessions are at 99.2 percent, up from last week.",
		"오프라인 동기화 충돌은 아직 두 건 남아 있어요.",
		"We decided to ship on March 20 with a staged rollout.",
		"David will prepare the capacity plan by Wednesday.",
	}
	for i := 0; i < turns; i++ {
		start := int64(i) * 4000
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s: %s (%d)\n\n", i+1, vttTime(start), vttTime(start+3500),
			speakers[i%len(speakers)], lines[i%len(lines)], i)
	}
	return b.String()
}

func vttTime(ms int64) string {
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

type importReply struct {
	MeetingID  string `json:"meeting_id"`
	Format     string `json:"format"`
	Created    bool   `json:"created"`
	Segments   int    `json:"segments"`
	Inserted   int    `json:"inserted"`
	Duplicates int    `json:"duplicates"`
	Meeting    struct {
		Status    string     `json:"status"`
		Title     string     `json:"title"`
		StartedAt time.Time  `json:"started_at"`
		EndedAt   *time.Time `json:"ended_at"`
	} `json:"meeting"`
}

// multipartImport posts content as a file upload with the given fields.
func (h *harness) multipartImport(key, name, content string, fields map[string]string) response {
	h.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return h.do(http.MethodPost, "/v1/meetings/import", key, body.Bytes(), "Content-Type", mw.FormDataContentType())
}

func TestImportEndsMeetingRunsL1AndIsIdempotent(t *testing.T) {
	h := newPRHarness(t)
	key, other := h.key("acme"), h.key("other")
	vtt := importVTT(60)
	started := "2026-03-12T09:00:00Z"

	r := h.json(http.MethodPost, "/v1/meetings/import", key, map[string]string{
		"format": "vtt", "title": "Launch review", "content": vtt, "started_at": started, "project": "haru",
	})
	if r.status != http.StatusCreated {
		t.Fatalf("import = %d %s", r.status, r.body)
	}
	var first importReply
	r.decode(t, &first)
	if !first.Created || first.Segments != 60 || first.Inserted != 60 || first.Format != "vtt" ||
		first.Meeting.Status != "ended" || first.Meeting.Title != "Launch review" {
		t.Fatalf("first import = %+v", first)
	}
	wantStart, _ := time.Parse(time.RFC3339, started)
	wantEnd := wantStart.Add(59*4*time.Second + 3500*time.Millisecond)
	if !first.Meeting.StartedAt.Equal(wantStart) || first.Meeting.EndedAt == nil || !first.Meeting.EndedAt.Equal(wantEnd) {
		t.Fatalf("meeting runs %v to %v, want %v to %v", first.Meeting.StartedAt, first.Meeting.EndedAt, wantStart, wantEnd)
	}

	// Like a live meeting: its turns went through L1 and its end queued
	// the memory-bank update.
	var topics struct {
		Topics []struct {
			StartSeq int `json:"start_seq"`
			EndSeq   int `json:"end_seq"`
		} `json:"topics"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		h.do(http.MethodGet, "/v1/meetings/"+first.MeetingID+"/topics", key, nil).decode(t, &topics)
		if n := len(topics.Topics); n > 0 && topics.Topics[n-1].EndSeq == 59 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("topics after import = %+v, want topics up to seq 59", topics)
		}
		time.Sleep(50 * time.Millisecond)
	}
	info, err := h.insp.GetTaskInfo(tasks.MemoryQueueName, tasks.MemoryBankUpdateTaskID(first.MeetingID))
	if err != nil {
		t.Fatalf("memory-bank task of the imported meeting: %v", err)
	}
	if p, err := tasks.ParseMemoryBankUpdateTask(info.Payload); err != nil || p.GetProject() != "haru" {
		t.Fatalf("memory-bank task = %v %v", p, err)
	}

	// The same file again, as JSON or as an upload: the same meeting,
	// nothing stored.
	for _, again := range []response{
		h.json(http.MethodPost, "/v1/meetings/import", key, map[string]string{"format": "vtt", "content": vtt}),
		h.multipartImport(key, "zoom.vtt", vtt, nil),
	} {
		var rep importReply
		again.decode(t, &rep)
		if again.status != http.StatusOK || rep.MeetingID != first.MeetingID || rep.Created || rep.Inserted != 0 || rep.Duplicates != 60 {
			t.Fatalf("import again = %d %+v", again.status, rep)
		}
	}
	var m meeting
	h.do(http.MethodGet, "/v1/meetings/"+first.MeetingID, key, nil).decode(t, &m)
	if m.Counters.Utterances != 60 {
		t.Fatalf("meeting has %d utterances after three imports, want 60", m.Counters.Utterances)
	}

	// Export: the VTT export imports back into the same meeting.
	exp := h.do(http.MethodGet, "/v1/meetings/"+first.MeetingID+"/transcript?format=vtt", key, nil)
	if exp.status != http.StatusOK || !strings.HasPrefix(string(exp.body), "WEBVTT\n\n") || strings.Count(string(exp.body), " --> ") != 60 {
		t.Fatalf("vtt export = %d %.300s", exp.status, exp.body)
	}
	back := h.multipartImport(key, "export.vtt", string(exp.body), nil)
	var rep importReply
	back.decode(t, &rep)
	if rep.MeetingID != first.MeetingID || rep.Inserted != 0 {
		t.Fatalf("re-import of the export = %d %+v", back.status, rep)
	}
	for format, want := range map[string]string{
		"srt":   "1\n00:00:00,000 --> 00:00:03,500\nKim Jihyun: Let's review",
		"md":    "# Launch review\n\nStarted 2026-03-12T09:00:00Z",
		"json":  `"title":"Launch review","started_at":"2026-03-12T09:00:00Z","segments":[`,
		"jsonl": `"speaker_name":"Kim Jihyun","text":"Let's review the beta results`,
	} {
		r := h.do(http.MethodGet, "/v1/meetings/"+first.MeetingID+"/transcript?format="+format, key, nil)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), want) {
			t.Errorf("%s export = %d %.300s, want it to contain %q", format, r.status, r.body, want)
		}
	}

	// Another tenant: its own meeting for the same file, and no access
	// to this one.
	r = h.multipartImport(other, "zoom.vtt", vtt, nil)
	r.decode(t, &rep)
	if r.status != http.StatusCreated || rep.MeetingID == first.MeetingID {
		t.Fatalf("other tenant's import = %d %+v", r.status, rep)
	}
	if r := h.do(http.MethodGet, "/v1/meetings/"+first.MeetingID+"/transcript?format=vtt", other, nil); r.status != http.StatusNotFound {
		t.Fatalf("other tenant's export = %d %s", r.status, r.body)
	}
}

func TestImportFormats(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	for _, tc := range []struct {
		name, file, content string
		segments            int
	}{
		{"teams vtt", "teams.vtt", "WEBVTT\n\nabc/1-0\n00:00:01.000 --> 00:00:02.000\n<v Priya Raman>Staged rollout.</v>\n\nabc/2-0\n00:00:02.500 --> 00:00:04.000\n<v Lee>Agreed.</v>\n", 2},
		{"srt", "meet.srt", "1\n00:00:01,000 --> 00:00:02,000\nAlex: hello\n\n2\n00:00:03,000 --> 00:00:04,000\nSam: hi\n", 2},
		{"jsonl sniffed", "transcript.txt", `{"speaker_name":"A","text":"one","start_ms":0,"end_ms":10}` + "\n" + `{"speaker_name":"B","text":"two","start_ms":20,"end_ms":30}` + "\n", 2},
		{"qmsum", "Bed002.json", `{"topic_list":[],"meeting_transcripts":[{"speaker":"Grad E","content":"So ."},{"speaker":"PhD A","content":"Okay , the budget ."}]}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.multipartImport(key, tc.file, tc.content, map[string]string{"title": tc.name})
			var rep importReply
			r.decode(t, &rep)
			if r.status != http.StatusCreated || rep.Segments != tc.segments || rep.Meeting.Status != "ended" {
				t.Fatalf("import = %d %s", r.status, r.body)
			}
		})
	}
}

func TestImportRejectsMalformedNamingTheLine(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	for _, tc := range []struct {
		name string
		body map[string]string
		want string
	}{
		{"bad timing", map[string]string{"format": "vtt", "content": "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nA: ok\n\n2\n00:00:03.000 --> nonsense\nB: no\n"}, "line 8: end time"},
		{"not vtt", map[string]string{"format": "vtt", "content": "hello\n"}, "line 1: not a WebVTT file"},
		{"jsonl unknown field", map[string]string{"format": "jsonl", "content": `{"speaker_name":"A","text":"x","start_ms":0,"end_ms":1}` + "\n" + `{"speaker_name":"A","text":"y","start_ms":0,"end_ms":1,"oops":true}`}, "line 2:"},
		{"qmsum truncated", map[string]string{"format": "qmsum", "content": "{\n\"meeting_transcripts\": [\n{\"speaker\": \"A\", \"content\": \"x\"},\n"}, "line 4: unexpected end of file"},
		{"no segments", map[string]string{"format": "vtt", "content": "WEBVTT\n"}, "no segments"},
		{"unknown format", map[string]string{"format": "docx", "content": "x"}, "format must be"},
		{"cannot sniff", map[string]string{"content": "just some words"}, "cannot tell"},
		{"no content", map[string]string{"format": "vtt"}, "content is required"},
		{"bad started_at", map[string]string{"format": "vtt", "content": importVTT(2), "started_at": "yesterday"}, "RFC 3339"},
		{"future started_at", map[string]string{"format": "vtt", "content": importVTT(2), "started_at": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)}, "is in the future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.json(http.MethodPost, "/v1/meetings/import", key, tc.body)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("got %d %s, want 400 mentioning %q", r.status, r.body, tc.want)
			}
			checkClientError(t, tc.name, r)
		})
	}
	// Nothing was created by the refused imports.
	var list struct {
		Meetings []meeting `json:"meetings"`
	}
	h.do(http.MethodGet, "/v1/meetings", key, nil).decode(t, &list)
	if len(list.Meetings) != 0 {
		t.Fatalf("refused imports created %d meetings", len(list.Meetings))
	}
	r := h.multipartImport(key, "x.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:00.500\nA: backwards\n", nil)
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "line 3:") {
		t.Fatalf("multipart malformed = %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodGet, "/v1/meetings/00000000-0000-0000-0000-000000000000/transcript?format=docx", key, nil); r.status != http.StatusBadRequest {
		t.Fatalf("bad export format = %d %s", r.status, r.body)
	}
}

// FuzzImport: any JSON import is a 2xx or a 4xx with an error document.
func FuzzImport(f *testing.F) {
	for _, s := range []string{importVTT(3), sampleSRTForFuzz, `{"speaker_name":"A","text":"x","start_ms":0,"end_ms":1}`,
		"WEBVTT\n\n00:00.000 --> 00:01.000\n<v>\n", `{"meeting_transcripts":[{"speaker":"A","content":"x"}]}`, "\xff\xfe"} {
		f.Add("", s)
		f.Add("vtt", s)
	}
	h := newHarness(f, harnessOpts{bodyLimit: 64 << 10})
	key := h.key("acme")
	f.Fuzz(func(t *testing.T, format, content string) {
		h.t = t
		body, err := json.Marshal(map[string]string{"format": format, "content": content})
		if err != nil {
			return
		}
		checkClientError(t, "fuzzed import", h.do(http.MethodPost, "/v1/meetings/import", key, body))
	})
}

const sampleSRTForFuzz = "1\n00:00:01,000 --> 00:00:02,000\nAlex: hello\n"

// BenchmarkImportVTT imports an 8,000-cue (0.9 MB) WebVTT file through
// the multipart route (checked, stored, ended; L1 goes on in the
// background), imports the same file again (nothing stored) and exports
// it as WebVTT. go test -run '^$' -bench BenchmarkImportVTT
// ./services/agent-api/internal/httpapi/
func BenchmarkImportVTT(b *testing.B) {
	h := newHarness(b, harnessOpts{bodyLimit: 8 << 20})
	key := h.key("acme")
	base := importVTT(8000)
	var last importReply
	b.Run("new", func(b *testing.B) {
		b.SetBytes(int64(len(base)))
		for i := 0; b.Loop(); i++ {
			// One more cue makes each file, and so its meeting, new.
			vtt := base + fmt.Sprintf("\n9000\n10:00:00.000 --> 10:00:01.000\nKim Jihyun: run %d\n", i)
			r := h.multipartImport(key, "big.vtt", vtt, nil)
			if r.status != http.StatusCreated {
				b.Fatalf("import = %d %s", r.status, r.body)
			}
			r.decode(b, &last)
		}
	})
	b.Run("again", func(b *testing.B) {
		h.multipartImport(key, "big.vtt", base, nil)
		b.SetBytes(int64(len(base)))
		for b.Loop() {
			if r := h.multipartImport(key, "big.vtt", base, nil); r.status != http.StatusOK {
				b.Fatalf("import again = %d %s", r.status, r.body)
			}
		}
	})
	b.Run("export", func(b *testing.B) {
		for b.Loop() {
			if r := h.do(http.MethodGet, "/v1/meetings/"+last.MeetingID+"/transcript?format=vtt", key, nil); r.status != http.StatusOK {
				b.Fatalf("export = %d", r.status)
			}
		}
	})
}
