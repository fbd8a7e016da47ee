package load

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/agentapitest"
)

// liveStack is agent-api on a fresh schema, with a client that does not
// retry and the store the completeness check reads.
type liveStack struct {
	api         *apiclient.Client
	st          *PGStore
	dataDir     string
	pid         int
	dsn, schema string
}

func startLiveStack(t *testing.T) liveStack {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts agent-api")
	}
	dsn, schema := storetest.NewSchema(t)
	url, pid := agentapitest.Start(t, storetest.URLWithSchema(t, dsn, schema))
	dataDir := qmsumtest.Dir(t)
	st, err := OpenStore(context.Background(), dsn, "dev-key", store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	api := apiclient.New(url, "dev-key", apiclient.WithRetryPolicy(apiclient.NoRetry()))
	return liveStack{api: api, st: st, dataDir: dataDir, pid: pid, dsn: dsn, schema: schema}
}

// A short run against a real agent-api and PostgreSQL: every utterance is
// acknowledged and stored once (Korean ones with their text intact), asks
// are answered, RSS is sampled, the status file ends done; then a row
// deleted and a row added behind the API's back are caught by Check.
func TestRunAgainstAgentAPI(t *testing.T) {
	ls := startLiveStack(t)
	api, st, dataDir, pid, dsn, schema := ls.api, ls.st, ls.dataDir, ls.pid, ls.dsn, ls.schema
	ctx := context.Background()
	status := filepath.Join(t.TempDir(), "status")
	var log bytes.Buffer
	rep, err := Run(ctx, api, st, Options{
		Meetings: 3, Interval: 100 * time.Millisecond, Duration: 1500 * time.Millisecond, AskEvery: 500 * time.Millisecond,
		KoreanEvery: 3, Procs: []Proc{{"agent-api", pid}}, RSSEvery: 500 * time.Millisecond, DataDir: dataDir,
		StatusFile: status, Label: "load-test",
	}, &log)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	c := rep.Completeness
	if !c.OK() || !c.DBChecked || c.Generated < 30 || c.Acked != c.Generated || c.Stored != c.Acked || rep.Errors() != 0 {
		t.Fatalf("completeness %+v, errors %d", c, rep.Errors())
	}
	asks := 0
	for _, e := range rep.Endpoints {
		if e.Endpoint == EPAsk {
			asks = e.Requests
		}
	}
	if asks < 6 {
		t.Fatalf("%d asks, want at least 6", asks)
	}
	if len(rep.RSS) != 1 || len(rep.RSS[0].Samples) < 3 || rep.RSS[0].Samples[0].KB <= 0 {
		t.Fatalf("RSS %+v", rep.RSS)
	}
	if b, _ := os.ReadFile(status); !strings.Contains(string(b), "phase=done") {
		t.Fatalf("status file %q", b)
	}
	var md, sum bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| " + EPUtterances + " | ", "PASS: nothing lost or doubled", "| agent-api |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(sum.String(), fmt.Sprintf("acked=%d\n", c.Acked)) || !strings.Contains(sum.String(), "ok=true\n") {
		t.Errorf("summary:\n%s", sum.String())
	}

	// The Korean utterances arrived intact.
	m := rep.Meetings[0]
	rows, err := st.st.ListTranscripts(ctx, st.tenantID, m.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	hangul := 0
	for _, r := range rows {
		if strings.ContainsFunc(r.Text, func(c rune) bool { return unicode.Is(unicode.Hangul, c) }) {
			hangul++
		}
	}
	if hangul == 0 || hangul > len(rows)/2 {
		t.Fatalf("%d of %d stored turns are Korean", hangul, len(rows))
	}

	// Tamper behind the API: drop an acknowledged row, add one never sent.
	conn, err := pgx.Connect(ctx, storetest.URLWithSchema(t, dsn, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DELETE FROM transcripts WHERE meeting_id = $1 AND segment_id = $2`, m.ID, SegmentID(m.Prefix, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO transcripts (tenant_id, meeting_id, seq, segment_id, speaker_id, speaker_name, text, start_ms, end_ms, confidence, tokens, source)
		SELECT tenant_id, meeting_id, 100000, 'stray', speaker_id, speaker_name, text, start_ms, end_ms, confidence, tokens, source
		FROM transcripts WHERE meeting_id = $1 LIMIT 1`, m.ID); err != nil {
		t.Fatal(err)
	}
	got := Check(ctx, api, st, rep.Meetings, rep.PRs)
	if got.OK() || got.Lost != 1 || got.Doubled != 1 || got.SeqProblems != 1 {
		t.Fatalf("after tampering: %+v", got)
	}
	// The API's counter is the meeting's seq counter: it cannot see rows
	// changed behind its back, which is why runs pass --database-url.
	if got := Check(ctx, api, nil, rep.Meetings[:1], nil); got.DBChecked || got.Stored != len(rows) {
		t.Fatalf("counter check: %+v (rows %d)", got, len(rows))
	}
}

// With a meeting length, each slot runs meetings of that many utterances
// one after another: every one but the slot's last is ended, and nothing
// is lost or doubled across them.
func TestRunRotatesMeetings(t *testing.T) {
	ls := startLiveStack(t)
	api, st, dataDir := ls.api, ls.st, ls.dataDir
	ctx := context.Background()
	var log bytes.Buffer
	const slots, length = 2, 4
	rep, err := Run(ctx, api, st, Options{
		Meetings: slots, Interval: 50 * time.Millisecond, Duration: 1200 * time.Millisecond, AskEvery: 300 * time.Millisecond,
		MeetingLength: length, DataDir: dataDir, Label: "rotate-test",
	}, &log)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if c := rep.Completeness; !c.OK() || !c.DBChecked || c.Stored != c.Generated || rep.Errors() != 0 {
		t.Fatalf("completeness %+v, errors %d\n%s", c, rep.Errors(), log.String())
	}
	if len(rep.Meetings) < 2*slots {
		t.Fatalf("%d meetings for %d slots: no rotation", len(rep.Meetings), slots)
	}
	open := 0
	o := Options{Meetings: slots, MeetingLength: length}
	for i, m := range rep.Meetings {
		want := length
		if i < slots {
			// The first meetings are staggered: 2 and 4 utterances.
			want = o.lengthOf(i, 0)
		}
		if m.Generated > want {
			t.Fatalf("meeting %s got %d utterances, length %d", m.ID, m.Generated, want)
		}
		got, err := api.GetMeeting(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "ended" {
			open++
			continue
		}
		if m.Generated != want {
			t.Fatalf("meeting %s ended after %d utterances, want %d", m.ID, m.Generated, want)
		}
	}
	if open != slots {
		t.Fatalf("%d meetings left open, want each slot's last (%d)", open, slots)
	}
}

func TestLengthOfStaggersFirstMeetings(t *testing.T) {
	o := Options{Meetings: 4, MeetingLength: 60}
	for slot, want := range []int{15, 30, 45, 60} {
		if got := o.lengthOf(slot, 0); got != want {
			t.Errorf("slot %d first meeting: %d utterances, want %d", slot, got, want)
		}
		if got := o.lengthOf(slot, 1); got != 60 {
			t.Errorf("slot %d second meeting: %d utterances, want 60", slot, got)
		}
	}
	if got := (Options{Meetings: 200, MeetingLength: 3}).lengthOf(0, 0); got != 1 {
		t.Errorf("shortest first meeting = %d, want 1", got)
	}
}
