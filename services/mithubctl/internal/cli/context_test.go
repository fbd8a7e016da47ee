package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func TestPrintContext(t *testing.T) {
	tests := []struct {
		name string
		give apiclient.Context
		want string
	}{
		{
			name: "turns",
			give: apiclient.Context{
				MeetingID: "m-1", Cursor: 2,
				L0: apiclient.L0Context{Tokens: 17, Turns: []apiclient.Turn{
					{Seq: 0, SpeakerName: "Alice", Text: "Let's start.", StartMS: 0, EndMS: 900},
					{Seq: 1, SpeakerID: "bob", Text: "Release is\nblocked.", StartMS: 65_400},
					{Seq: 2, SpeakerName: "Grad E", Text: "OK", StartMS: 6_061_999},
				}},
				L1: apiclient.L1Context{Cursor: 1, Topics: []apiclient.Topic{
					{Seq: 0, Title: "release · blocker", Summary: "Release is blocked.", StartSeq: 0, EndSeq: 1, StartMS: 0, EndMS: 66_000},
				}},
				Pending:  apiclient.L0Context{Tokens: 1, Turns: []apiclient.Turn{{Seq: 2}}},
				Speakers: []apiclient.Speaker{{Name: "Alice", Turns: 1, Words: 2, Role: "facilitator"}},
				Counters: apiclient.Counters{Utterances: 530, Tokens: 9001, LastSeq: 529},
			},
			want: "[00:00] Alice: Let's start.\n" +
				"[01:05] bob: Release is blocked.\n" +
				"[101:01] Grad E: OK\n" +
				"\nL0: 3 turns, 17 tokens (cursor 2)\n" +
				"\nL1 topics (through seq 1):\n" +
				"   1. [00:00-01:06] release · blocker: Release is blocked.\n" +
				"pending (not yet in a topic): 1 turns, 1 tokens\n" +
				"\nspeakers:\n" +
				"  Alice               1 turns      2 words  facilitator\n" +
				"\nmeeting: 530 utterances, 9001 tokens\n",
		},
		{
			name: "empty",
			give: apiclient.Context{MeetingID: "m-2", Cursor: -1},
			want: "(no turns in L0)\n\nL0: 0 turns, 0 tokens (cursor -1)\npending (not yet in a topic): 0 turns, 0 tokens\n\nmeeting: 0 utterances, 0 tokens\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := printContext(&b, tt.give); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

const contextDoc = `{"meeting_id":"m-1","cursor":0,"l0":{"turns":[{"seq":0,"segment_id":"s1","speaker_id":"alice",
"speaker_name":"Alice","text":"hello","start_ms":3000,"end_ms":4000,"confidence":1,"tokens":2}],"tokens":2},
"counters":{"utterances":1,"tokens":2,"last_seq":0},"speakers":[{"id":"alice","name":"Alice","turns":1,"words":1,"role":"participant"}]}`

func TestContextCommand(t *testing.T) {
	var gotAuth, gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotPath = r.Header.Get("Authorization"), r.URL.Path
		io.WriteString(w, contextDoc)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{cmdline.EnvAPIURL: srv.URL, cmdline.EnvAPIKey: "env-key"}

	stdout, _, err := runCLI(t, []string{"context", "--meeting", "m-1"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, "[00:03] Alice: hello\n") || gotAuth != "Bearer env-key" || gotPath != "/v1/meetings/m-1/context" {
		t.Errorf("stdout %q, auth %q, path %q", stdout, gotAuth, gotPath)
	}

	stdout, _, err = runCLI(t, []string{"context", "--meeting", "m-1", "--json", "--api-key", "flag-key"}, env)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc["speakers"] == nil || gotAuth != "Bearer flag-key" {
		t.Errorf("--json output %q (%v), auth %q", stdout, err, gotAuth)
	}
}

func TestContextCommandAPIError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":"meeting_not_found","message":"meeting not found"}}`)
	}))
	t.Cleanup(srv.Close)

	_, _, err := runCLI(t, []string{"context", "--meeting", "nope", "--api-url", srv.URL, "--api-key", "k"}, nil)
	if err == nil || !strings.Contains(err.Error(), "meeting_not_found") || cmdline.ExitCode(err) != 1 {
		t.Errorf("err = %v (exit %d), want a not-found API error with exit 1", err, cmdline.ExitCode(err))
	}
}
