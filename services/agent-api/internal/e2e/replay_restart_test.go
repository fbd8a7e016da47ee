package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/config"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

type liveContext struct {
	MeetingID string `json:"meeting_id"`
	Cursor    int    `json:"cursor"`
	L0        struct {
		Turns  []meetingctx.Turn `json:"turns"`
		Tokens int               `json:"tokens"`
	} `json:"l0"`
	L1 struct {
		Cursor int                `json:"cursor"`
		Topics []meetingctx.Topic `json:"topics"`
		Waited *bool              `json:"waited"`
	} `json:"l1"`
	Pending struct {
		Turns []meetingctx.Turn `json:"turns"`
	} `json:"pending"`
	Speakers []meetingctx.Speaker `json:"speakers"`
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

	// Topics: the restarted process finishes segmenting, keeps the
	// topics stored before the kill (same ids), and ends with the topics a
	// process that never died builds from the whole transcript.
	got := settledContext(t, base, "dev-key", m.ID)
	stored, err := st.ListTopics(ctx, dev.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.L1.Topics) == 0 || len(stored) != len(got.L1.Topics) {
		t.Fatalf("context after restart has %d topics, %d stored", len(got.L1.Topics), len(stored))
	}
	for i, tp := range got.L1.Topics {
		if s := stored[i]; tp.ID != s.ID || tp.StartSeq != s.StartSeq || tp.EndSeq != s.EndSeq || tp.Title != s.Title {
			t.Fatalf("topic %d: context has %s [%d,%d] %q, store has %s [%d,%d] %q",
				i, tp.ID, tp.StartSeq, tp.EndSeq, tp.Title, s.ID, s.StartSeq, s.EndSeq, s.Title)
		}
	}

	snap := fullBuild(t, apiEnv, dev.ID, m.ID, meetingcache.Turns(rows))
	if got.Cursor != snap.Cursor || got.Counters.Tokens != snap.TotalTokens || got.Counters.Utterances != snap.Turns ||
		got.L0.Tokens != snap.L0Tokens || !reflect.DeepEqual(got.L0.Turns, snap.L0) {
		t.Fatalf("context after restart differs from the full-transcript build:\ngot  cursor %d tokens %d L0 %d turns\nwant cursor %d tokens %d L0 %d turns",
			got.Cursor, got.Counters.Tokens, len(got.L0.Turns), snap.Cursor, snap.TotalTokens, len(snap.L0))
	}
	if !reflect.DeepEqual(got.Speakers, snap.Speakers) {
		t.Fatalf("speakers after restart differ from the full-transcript build:\ngot  %+v\nwant %+v", got.Speakers, snap.Speakers)
	}
	if got.L1.Cursor != snap.L1Cursor || len(got.Pending.Turns) != len(snap.Pending) || len(got.L1.Topics) != len(snap.Topics) {
		t.Fatalf("after restart: L1 cursor %d, %d pending, %d topics; full-transcript build: %d, %d, %d",
			got.L1.Cursor, len(got.Pending.Turns), len(got.L1.Topics), snap.L1Cursor, len(snap.Pending), len(snap.Topics))
	}
	for i, tp := range got.L1.Topics {
		if w := snap.Topics[i]; !sameTopic(tp, w) {
			t.Fatalf("topic %d after restart differs from the full-transcript build:\ngot  [%d,%d] %q %q %v v%d\nwant [%d,%d] %q %q %v v%d",
				i, tp.StartSeq, tp.EndSeq, tp.Title, tp.Summary, tp.Keywords, tp.Version,
				w.StartSeq, w.EndSeq, w.Title, w.Summary, w.Keywords, w.Version)
		}
	}
}

// sameTopic compares what a topic says and covers; ids are random per
// process.
func sameTopic(a, b meetingctx.Topic) bool {
	return a.Seq == b.Seq && a.StartSeq == b.StartSeq && a.EndSeq == b.EndSeq && a.StartMS == b.StartMS && a.EndMS == b.EndMS &&
		a.Title == b.Title && a.Summary == b.Summary && slices.Equal(a.Keywords, b.Keywords) && a.Version == b.Version
}

// settledContext waits, one bounded server-side wait after another, until
// agent-api has no topic work left for the meeting, and returns its
// context.
func settledContext(t *testing.T, base, key, meetingID string) liveContext {
	t.Helper()
	var got liveContext
	waitFor(t, 2*time.Minute, func() bool {
		req, err := http.NewRequest(http.MethodGet, base+"/v1/meetings/"+meetingID+"/context?wait=true", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got = liveContext{}
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("context: %d %v", resp.StatusCode, err)
		}
		return got.L1.Waited != nil && *got.L1.Waited
	})
	return got
}

// fullBuild is the context a process that never died builds from the
// whole transcript: agent-api's context settings under env (added to this
// process's environment, as start does) and its local providers.
func fullBuild(t *testing.T, env []string, tenantID, meetingID string, turns []meetingctx.Turn) meetingctx.Snapshot {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range append(os.Environ(), env...) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	cfg, err := config.FromMap(vars)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LLM.Provider != config.ProviderLocal || cfg.Embed.Provider != config.ProviderLocal {
		t.Fatalf("agent-api runs with the %s model and %s embeddings; the full-transcript build has only the local ones",
			cfg.LLM.Provider, cfg.Embed.Provider)
	}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: segment.NewSegmenter(segment.SegmenterConfig{}), Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(cfg.Embed.Dim), Store: discardTopics{},
	})
	t.Cleanup(func() { _ = eng.Close(10 * time.Second) })
	full := meetingctx.New(tenantID, meetingID, cfg.Context, eng)
	if _, err := full.Apply(turns); err != nil {
		t.Fatal(err)
	}
	if !full.WaitL1(context.Background(), 5*time.Minute) {
		t.Fatal("the full-transcript build did not finish its topics within 5 minutes")
	}
	return full.Snapshot()
}

// discardTopics stores no topics.
type discardTopics struct{}

func (discardTopics) SaveTopics(context.Context, string, string, int, []meetingctx.Topic) error {
	return nil
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
