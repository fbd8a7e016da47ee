package transcriptfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// checkReader reads all of in as f: it must not panic, every error is a
// *LineError with a line number, and every segment is well formed.
func checkReader(t *testing.T, f Format, in []byte) []Segment {
	r, err := Open(bytes.NewReader(in), f)
	if err != nil {
		t.Fatal(err)
	}
	ids := NewIDs()
	var out []Segment
	lines := bytes.Count(in, []byte("\n")) + 1
	for {
		s, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Line > lines+1 {
				t.Fatalf("error %v (%T) does not name a line within 1..%d", err, err, lines+1)
			}
			return out
		}
		s = ids.Assign(s)
		if strings.TrimSpace(s.Text) == "" || s.SpeakerName == "" || s.ID == "" || s.StartMS < 0 || s.EndMS < s.StartMS {
			t.Fatalf("bad segment %+v", s)
		}
		out = append(out, s)
	}
}

func FuzzReadVTT(f *testing.F) {
	f.Add([]byte(zoomVTT))
	f.Add([]byte(teamsVTT))
	f.Add([]byte(meetVTT))
	f.Add([]byte("WEBVTT\n\n00:00.000 --> 00:01.000\n<v>\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		segs := checkReader(t, VTT, in)
		// What was read writes and reads back the same.
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, VTT, Meta{})
		for _, s := range segs {
			w.Write(s)
		}
		w.Close()
		back, err := ReadAll(&buf, VTT)
		if err != nil {
			t.Fatalf("reading written VTT: %v\n%s", err, buf.String())
		}
		if len(back) != len(segs) {
			t.Fatalf("wrote %d segments, read %d back:\n%s", len(segs), len(back), buf.String())
		}
		for i := range back {
			if back[i].Text != segs[i].Text || back[i].StartMS != segs[i].StartMS || back[i].EndMS != segs[i].EndMS {
				t.Fatalf("segment %d: wrote %+v, read %+v", i, segs[i], back[i])
			}
		}
	})
}

func FuzzReadSRT(f *testing.F) {
	f.Add([]byte(sampleSRT))
	f.Add([]byte("1\n00:00:01,000 --> 00:00:02,000\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) { checkReader(t, SRT, in) })
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"speaker_name":"A","text":"x","start_ms":0,"end_ms":1}` + "\n"))
	f.Add([]byte(`{"segment_id":"a","speaker_name":"A","text":"x","start_ms":0,"end_ms":1,"confidence":0.5}`))
	f.Fuzz(func(t *testing.T, in []byte) { checkReader(t, JSONL, in) })
}

func FuzzReadQMSum(f *testing.F) {
	f.Add([]byte(`{"topic_list":[],"meeting_transcripts":[{"speaker":"A","content":"x"}]}`))
	f.Add([]byte("{\n\"meeting_transcripts\": [\n{\"speaker\": \"A\", \"content\": \"y\"}\n]\n}"))
	f.Fuzz(func(t *testing.T, in []byte) { checkReader(t, QMSum, in) })
}
