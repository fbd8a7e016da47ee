package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/contexts"
)

type liveContext struct {
	MeetingID string `json:"meeting_id"`
	Cursor    int    `json:"cursor"`
	L0        struct {
		Turns  []meetingctx.Turn `json:"turns"`
		Tokens int               `json:"tokens"`
	} `json:"l0"`
	Counters struct {
		Utterances int   `json:"utterances"`
		Tokens     int64 `json:"tokens"`
		LastSeq    int   `json:"last_seq"`
	} `json:"counters"`
}

// A replay survives agent-api being killed with SIGKILL halfway: after a
// restart the replay finishes, every utterance is stored exactly once, a
// second replay adds nothing, and the rebuilt context equals a context
// built by applying the whole stored transcript.
func TestReplaySurvivesAgentAPIKill(t *testing.T) {
	apiBin, ctlBin := binaries(t)
	dir := qmsumtest.Dir(t)
	file := filepath.Join(dir, "val", "Bed002.json")
	qm, err := qmsum.Load(file)
	if err != nil {
		t.Fatal(err)
	}

	dsn, schema := storetest.NewSchema(t)
	dbURL := storetest.URLWithSchema(t, dsn, schema)
	addr := freeAddr(t)
	base := "http://" + addr
	apiEnv := []string{"MITHUB_ENV=dev", "MITHUB_DATABASE_URL=" + dbURL, "MITHUB_HTTP_ADDR=" + addr, "MITHUB_LOG_LEVEL=warn"}
	api := start(t, apiBin, apiEnv)
	waitHealthy(t, base, api)

	ctx := context.Background()
	client := apiclient.New(base, "dev-key")
	m, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: "Bed002", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	st, dev := devStore(t, dbURL)

	ctlEnv := []string{"MITHUB_API_URL=" + base, "MITHUB_API_KEY=dev-key"}
	replayArgs := []string{"replay", "--meeting-file", file, "--meeting", m.ID, "--batch", "10"}
	replay := start(t, ctlBin, ctlEnv, append(replayArgs, "--rate", "300")...)

	// Kill agent-api once a fifth of the meeting is stored.
	want := qmsum.Utterances(qm, qmsum.Slug("Bed002"))
	waitFor(t, 60*time.Second, func() bool {
		got, err := st.GetMeeting(ctx, dev.ID, m.ID)
		return err == nil && got.Utterances >= len(want)/5
	})
	kill9(t, api)
	mid, err := st.GetMeeting(ctx, dev.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Utterances >= len(want) {
		t.Fatalf("replay finished before the kill (%d rows); slow it down", mid.Utterances)
	}
	api = start(t, apiBin, apiEnv)
	waitHealthy(t, base, api)
	if err := waitExit(t, replay, 2*time.Minute); err != nil {
		t.Fatalf("replay after restart: %v\n%s", err, replay.logs)
	}

	// Again, into the same meeting: nothing new.
	again := exec.Command(ctlBin, replayArgs...)
	again.Env = append(os.Environ(), ctlEnv...)
	out, err := again.Output()
	if err != nil {
		t.Fatalf("second replay: %v", err)
	}
	if strings.TrimSpace(string(out)) != m.ID {
		t.Fatalf("second replay printed %q, want the meeting id", out)
	}

	rows, err := st.ListTranscripts(ctx, dev.ID, m.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("stored %d utterances, want %d (killed at %d)", len(rows), len(want), mid.Utterances)
	}
	for i, r := range rows {
		if r.Seq != i || r.SegmentID != want[i].SegmentID || r.Text != want[i].Text {
			t.Fatalf("row %d: seq %d segment %s text %q", i, r.Seq, r.SegmentID, r.Text)
		}
	}

	raw, err := client.ContextRaw(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got liveContext
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	full := meetingctx.New(dev.ID, m.ID, meetingctx.Config{}, nil)
	if _, err := full.Apply(contexts.Turns(rows)); err != nil {
		t.Fatal(err)
	}
	snap := full.Snapshot()
	if got.Cursor != snap.Cursor || got.Counters.Tokens != snap.TotalTokens || got.Counters.Utterances != snap.Turns ||
		got.L0.Tokens != snap.L0Tokens || !reflect.DeepEqual(got.L0.Turns, snap.L0) {
		t.Fatalf("context after restart differs from the full-transcript build:\ngot  cursor %d tokens %d L0 %d turns\nwant cursor %d tokens %d L0 %d turns",
			got.Cursor, got.Counters.Tokens, len(got.L0.Turns), snap.Cursor, snap.TotalTokens, len(snap.L0))
	}
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("condition not met within %s", timeout)
		case <-tick.C:
		}
	}
}

// devStore opens the test database beside the service, as another
// process would, with the dev tenant.
func devStore(t *testing.T, dbURL string) (*store.Store, store.Tenant) {
	t.Helper()
	st, err := store.Open(t.Context(), dbURL, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	dev, err := st.EnsureTenant(t.Context(), "dev")
	if err != nil {
		t.Fatal(err)
	}
	return st, dev
}
