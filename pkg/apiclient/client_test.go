package apiclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

const meetingJSON = `{"id":"6f1c2a9e-0000-4000-8000-000000000001","room_name":"standup",
"title":"Standup","language":"en","status":"active","started_at":"2025-03-01T09:00:00Z",
"ended_at":null,"metadata":{"team":"core"},"counters":{"utterances":3,"tokens":42,"last_seq":2}}`

// recorded is one request seen by a test server.
type recorded struct {
	method, path, auth, contentType, userAgent string
	body                                       []byte
}

// newServer starts a server that records each request and answers it with
// handler.
func newServer(t *testing.T, handler http.HandlerFunc) (*httptest.Server, <-chan recorded) {
	t.Helper()
	reqs := make(chan recorded, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reqs <- recorded{
			method: r.Method, path: r.URL.EscapedPath(), auth: r.Header.Get("Authorization"),
			contentType: r.Header.Get("Content-Type"), userAgent: r.Header.Get("User-Agent"), body: body,
		}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// reply answers with status and body.
func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// jsonKeys returns the sorted top-level keys of a JSON object.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body %q: %v", b, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestCreateMeeting(t *testing.T) {
	srv, reqs := newServer(t, reply(http.StatusCreated, meetingJSON))
	c := New(srv.URL+"/", "secret", WithUserAgent("test-agent/2"))

	m, err := c.CreateMeeting(t.Context(), CreateMeetingRequest{Title: "Standup", RoomName: "standup", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	wantStarted := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	want := Meeting{
		ID: "6f1c2a9e-0000-4000-8000-000000000001", RoomName: "standup", Title: "Standup",
		Language: "en", Status: StatusActive, StartedAt: wantStarted,
		Metadata: map[string]any{"team": "core"},
		Counters: Counters{Utterances: 3, Tokens: 42, LastSeq: 2},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("meeting = %+v, want %+v", m, want)
	}

	r := <-reqs
	if r.method != http.MethodPost || r.path != "/v1/meetings" {
		t.Errorf("request = %s %s, want POST /v1/meetings", r.method, r.path)
	}
	if r.auth != "Bearer secret" || r.contentType != "application/json" || r.userAgent != "test-agent/2" {
		t.Errorf("headers auth=%q content-type=%q user-agent=%q", r.auth, r.contentType, r.userAgent)
	}
	if got, want := jsonKeys(t, r.body), []string{"language", "room_name", "title"}; !reflect.DeepEqual(got, want) {
		t.Errorf("body keys = %v, want %v", got, want)
	}
}

func TestGetMeetingEnded(t *testing.T) {
	body := strings.Replace(meetingJSON, `"ended_at":null`, `"ended_at":"2025-03-01T09:30:00Z"`, 1)
	body = strings.Replace(body, `"status":"active"`, `"status":"ended"`, 1)
	srv, reqs := newServer(t, reply(http.StatusOK, body))
	c := New(srv.URL, "k")

	m, err := c.GetMeeting(t.Context(), "a/b")
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusEnded || m.EndedAt == nil || !m.EndedAt.Equal(time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("status=%q ended_at=%v", m.Status, m.EndedAt)
	}
	if r := <-reqs; r.method != http.MethodGet || r.path != "/v1/meetings/a%2Fb" {
		t.Errorf("request = %s %s, want GET /v1/meetings/a%%2Fb", r.method, r.path)
	}
}

func TestPostUtterances(t *testing.T) {
	srv, reqs := newServer(t, reply(http.StatusOK, `{"inserted":1,"duplicates":1,"cursor":7}`))
	c := New(srv.URL, "k")
	utts := []Utterance{
		{SegmentID: "s1", SpeakerID: "alice", SpeakerName: "Alice", Text: "hello", StartMS: 0, EndMS: 1200, Confidence: 0.93},
		{SegmentID: "s2", SpeakerID: "bob", SpeakerName: "Bob", Text: "hi", StartMS: 1500, EndMS: 2000, Confidence: 1},
	}

	res, err := c.PostUtterances(t.Context(), "m1", utts)
	if err != nil {
		t.Fatal(err)
	}
	if want := (IngestResult{Inserted: 1, Duplicates: 1, Cursor: 7}); res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}

	r := <-reqs
	if r.method != http.MethodPost || r.path != "/v1/meetings/m1/utterances" {
		t.Errorf("request = %s %s", r.method, r.path)
	}
	var sent struct {
		Utterances []map[string]json.RawMessage `json:"utterances"`
	}
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sent); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if len(sent.Utterances) != 2 {
		t.Fatalf("sent %d utterances, want 2", len(sent.Utterances))
	}
	wantKeys := []string{"confidence", "end_ms", "segment_id", "speaker_id", "speaker_name", "start_ms", "text"}
	u0, _ := json.Marshal(sent.Utterances[0])
	if got := jsonKeys(t, u0); !reflect.DeepEqual(got, wantKeys) {
		t.Errorf("utterance keys = %v, want %v", got, wantKeys)
	}
	if string(sent.Utterances[0]["segment_id"]) != `"s1"` || string(sent.Utterances[1]["start_ms"]) != "1500" {
		t.Errorf("utterances sent = %s", r.body)
	}
}

func TestPostUtterancesNilSendsEmptyArray(t *testing.T) {
	srv, reqs := newServer(t, reply(http.StatusOK, `{"inserted":0,"duplicates":0,"cursor":-1}`))
	res, err := New(srv.URL, "k").PostUtterances(t.Context(), "m1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cursor != -1 {
		t.Errorf("cursor = %d, want -1", res.Cursor)
	}
	if r := <-reqs; string(r.body) != `{"utterances":[]}` {
		t.Errorf("body = %s", r.body)
	}
}

func TestPostUtterancesTooMany(t *testing.T) {
	srv, reqs := newServer(t, reply(http.StatusOK, `{}`))
	_, err := New(srv.URL, "k").PostUtterances(t.Context(), "m1", make([]Utterance, MaxUtterancesPerRequest+1))
	if err == nil || !strings.Contains(err.Error(), "at most 500") {
		t.Fatalf("err = %v, want a size error", err)
	}
	if len(reqs) != 0 {
		t.Errorf("%d requests sent, want 0", len(reqs))
	}
}

func TestSyncEndContext(t *testing.T) {
	contextJSON := `{"meeting_id":"m1","cursor":1,"l0":{"turns":[
{"seq":0,"segment_id":"s1","speaker_id":"alice","speaker_name":"Alice","text":"hello","start_ms":0,"end_ms":1200,"confidence":0.93,"tokens":2},
{"seq":1,"segment_id":"s2","speaker_id":"bob","speaker_name":"Bob","text":"hi there","start_ms":1500,"end_ms":2000,"confidence":1,"tokens":3}],
"tokens":5},"l1":{"cursor":-1,"busy":true,"topics":[]},"pending":{"turns":[],"tokens":0},
"speakers":[{"id":"alice","name":"Alice","turns":1,"words":1,"talk_ms":1200,"questions":0,"decisions":0,"role":"participant"}],
"counters":{"utterances":2,"tokens":5,"last_seq":1},"extra":{"kept":true}}`
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/meetings/m1/sync":
			reply(http.StatusOK, `{"applied":4,"cursor":9}`)(w, r)
		case "/v1/meetings/m1/end":
			reply(http.StatusOK, strings.Replace(meetingJSON, `"status":"active"`, `"status":"ended"`, 1))(w, r)
		case "/v1/meetings/m1/context":
			reply(http.StatusOK, contextJSON)(w, r)
		default:
			reply(http.StatusNotFound, `{"error":{"code":"not_found","message":"no route"}}`)(w, r)
		}
	})
	c := New(srv.URL, "k")
	ctx := t.Context()

	sr, err := c.Sync(ctx, "m1")
	if err != nil || sr != (SyncResult{Applied: 4, Cursor: 9}) {
		t.Errorf("Sync = %+v, %v", sr, err)
	}
	if r := <-reqs; r.method != http.MethodPost || len(r.body) != 0 {
		t.Errorf("sync request = %s with body %q", r.method, r.body)
	}
	m, err := c.EndMeeting(ctx, "m1")
	if err != nil || m.Status != StatusEnded {
		t.Errorf("EndMeeting = %+v, %v", m, err)
	}
	<-reqs
	mc, err := c.Context(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	want := Context{
		MeetingID: "m1", Cursor: 1,
		L0: L0Context{Tokens: 5, Turns: []Turn{
			{Seq: 0, SegmentID: "s1", SpeakerID: "alice", SpeakerName: "Alice", Text: "hello", StartMS: 0, EndMS: 1200, Confidence: 0.93, Tokens: 2},
			{Seq: 1, SegmentID: "s2", SpeakerID: "bob", SpeakerName: "Bob", Text: "hi there", StartMS: 1500, EndMS: 2000, Confidence: 1, Tokens: 3},
		}},
		L1:       L1Context{Cursor: -1, Busy: true, Topics: []Topic{}},
		Pending:  L0Context{Turns: []Turn{}},
		Speakers: []Speaker{{ID: "alice", Name: "Alice", Turns: 1, Words: 1, TalkMS: 1200, Role: "participant"}},
		Counters: Counters{Utterances: 2, Tokens: 5, LastSeq: 1},
	}
	if !reflect.DeepEqual(mc, want) {
		t.Errorf("Context = %+v, want %+v", mc, want)
	}
	raw, err := c.ContextRaw(ctx, "m1")
	if err != nil || !strings.Contains(string(raw), `"extra":{"kept":true}`) {
		t.Errorf("ContextRaw = %s, %v", raw, err)
	}
}

func TestEmptyMeetingID(t *testing.T) {
	_, err := New("http://127.0.0.1:1", "k").GetMeeting(t.Context(), "")
	if !errors.Is(err, ErrNoMeetingID) {
		t.Errorf("err = %v, want ErrNoMeetingID", err)
	}
}

func TestAPIErrors(t *testing.T) {
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name       string
		giveStatus int
		giveBody   string
		want       APIError
	}{
		{
			name: "bad request", giveStatus: 400,
			giveBody: `{"error":{"code":"invalid_body","message":"unknown field \"foo\""}}`,
			want:     APIError{Status: 400, Code: "invalid_body", Message: `unknown field "foo"`},
		},
		{
			name: "not found", giveStatus: 404,
			giveBody: `{"error":{"code":"meeting_not_found","message":"meeting not found"}}`,
			want:     APIError{Status: 404, Code: "meeting_not_found", Message: "meeting not found"},
		},
		{
			name: "plain text", giveStatus: 500, giveBody: "upstream exploded\n",
			want: APIError{Status: 500, Message: "upstream exploded"},
		},
		{
			name: "long html", giveStatus: 500, giveBody: long,
			want: APIError{Status: 500, Message: long[:maxErrorText] + "…"},
		},
		{
			name: "empty body", giveStatus: 401, giveBody: "",
			want: APIError{Status: 401, Message: "Unauthorized"},
		},
		{
			name: "json without envelope", giveStatus: 409, giveBody: `{"message":"x"}`,
			want: APIError{Status: 409, Message: `{"message":"x"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, reqs := newServer(t, reply(tt.giveStatus, tt.giveBody))
			_, err := New(srv.URL, "k").GetMeeting(t.Context(), "m1")
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			if *apiErr != tt.want {
				t.Errorf("APIError = %+v, want %+v", *apiErr, tt.want)
			}
			if len(reqs) != 1 {
				t.Errorf("%d requests, want 1 (no retry)", len(reqs))
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	err := &APIError{Status: 404, Code: "meeting_not_found", Message: "meeting not found"}
	if got, want := err.Error(), "api error 404 meeting_not_found: meeting not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestHealthz(t *testing.T) {
	srv, reqs := newServer(t, reply(http.StatusOK, `{"status":"ok"}`))
	if err := New(srv.URL, "").Healthz(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := <-reqs; r.path != "/healthz" || r.auth != "" {
		t.Errorf("request path=%q auth=%q", r.path, r.auth)
	}

	down, _ := newServer(t, reply(http.StatusInternalServerError, "down"))
	if err := New(down.URL, "").Healthz(t.Context()); err == nil {
		t.Error("Healthz on a 500 = nil, want error")
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	s := strings.Repeat("가", 300) // 3 bytes each
	got := truncate(s, 10)
	if got != "가가가…" {
		t.Errorf("truncate = %q", got)
	}
}
