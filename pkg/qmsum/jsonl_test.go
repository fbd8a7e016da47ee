package qmsum

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/apiclient"
)

func TestReadJSONL(t *testing.T) {
	in := `{"segment_id":"s1","speaker_id":"alice","speaker_name":"Alice","text":"hello","start_ms":0,"end_ms":1200,"confidence":0.93}

{"speaker_name":"Bob Lee","text":"hi there","start_ms":1500,"end_ms":2000}
`
	utts, err := ReadJSONL(strings.NewReader(in), "demo")
	if err != nil {
		t.Fatal(err)
	}
	want := []apiclient.Utterance{
		{SegmentID: "s1", SpeakerID: "alice", SpeakerName: "Alice", Text: "hello", StartMS: 0, EndMS: 1200, Confidence: 0.93},
		{SegmentID: "demo-00003", SpeakerID: "bob-lee", SpeakerName: "Bob Lee", Text: "hi there", StartMS: 1500, EndMS: 2000, Confidence: 1},
	}
	if !reflect.DeepEqual(utts, want) {
		t.Errorf("utterances = %+v\nwant %+v", utts, want)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	ok := `{"speaker_name":"A","text":"x"}` + "\n"
	tests := []struct {
		name    string
		give    string
		wantErr string
	}{
		{name: "missing speaker", give: ok + `{"text":"x"}`, wantErr: "line 2: speaker_name is required"},
		{name: "missing text", give: ok + "\n" + `{"speaker_name":"A"}`, wantErr: "line 3: text is required"},
		{name: "unknown field", give: `{"speaker_name":"A","text":"x","speaker":"A"}`, wantErr: `line 1: json: unknown field "speaker"`},
		{name: "bad json", give: ok + ok + `{"speaker_name":"A",`, wantErr: "line 3: unexpected EOF"},
		{name: "wrong type", give: `{"speaker_name":"A","text":"x","start_ms":"0"}`, wantErr: "line 1: json: cannot unmarshal string"},
		{name: "two values", give: `{"speaker_name":"A","text":"x"} {}`, wantErr: "line 1: unexpected data after the JSON object"},
		{name: "times reversed", give: `{"speaker_name":"A","text":"x","start_ms":5,"end_ms":4}`, wantErr: "line 1: want 0 <= start_ms <= end_ms"},
		{name: "confidence", give: `{"speaker_name":"A","text":"x","confidence":1.5}`, wantErr: "line 1: confidence 1.5 outside [0, 1]"},
		{
			name:    "duplicate segment",
			give:    `{"segment_id":"s","speaker_name":"A","text":"x"}` + "\n" + `{"segment_id":"s","speaker_name":"B","text":"y"}`,
			wantErr: `line 2: segment_id "s" already used on line 1`,
		},
		{name: "line too long", give: ok + `{"speaker_name":"A","text":"` + strings.Repeat("x", maxLineBytes) + `"}`, wantErr: "line 2: longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(tt.give), "p")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadJSONL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "standup.jsonl")
	if err := os.WriteFile(path, []byte(`{"speaker_name":"A","text":"x"}`+"\n"+`{"speaker_name":"A"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadJSONL(path, "standup")
	if err == nil || !strings.Contains(err.Error(), "standup.jsonl: line 2: text is required") {
		t.Errorf("err = %v, want a line 2 error naming the file", err)
	}
}
