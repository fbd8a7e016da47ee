package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// The memory bank an ask packs follows every write: one through this
// agent-api (seen by the very next ask) and one from another process
// (seen once its notification arrives), in the built binary; and the
// ask's thread checkpoints are stored.
func TestAskFollowsMemoryBankWrites(t *testing.T) {
	apiBin, _ := binaries(t)
	dsn, schema := storetest.NewSchema(t)
	dbURL := storetest.URLWithSchema(t, dsn, schema)
	addr := freeAddr(t)
	base := "http://" + addr
	api := start(t, apiBin, []string{"MITHUB_ENV=dev", "MITHUB_DATABASE_URL=" + dbURL, "MITHUB_HTTP_ADDR=" + addr, "MITHUB_LOG_LEVEL=warn"})
	waitHealthy(t, base, api)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := apiclient.New(base, "dev-key")
	m, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: "출시 회의", Language: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.PostUtterances(ctx, m.ID, []apiclient.Utterance{
		{SegmentID: "s1", SpeakerID: "kim", SpeakerName: "김민수", Text: "출시 일정은 다음 주에 정하겠습니다.", StartMS: 0, EndMS: 2000},
	}); err != nil {
		t.Fatal(err)
	}
	call := func(method, path string, body any) []byte {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer dev-key")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, buf.String())
		}
		return buf.Bytes()
	}
	packed := func() string {
		t.Helper()
		var res struct {
			Debug struct {
				System string `json:"system"`
			} `json:"debug"`
		}
		if err := json.Unmarshal(call(http.MethodPost, "/v1/meetings/"+m.ID+"/ask?debug=true",
			map[string]string{"question": "출시 일정은 어떻게 되나요?"}), &res); err != nil {
			t.Fatal(err)
		}
		return res.Debug.System
	}

	for i := range 3 {
		want := fmt.Sprintf("출시는 %d월로 결정", i+3)
		call(http.MethodPut, "/v1/memory-bank/default/"+membank.CategoryDecisions, map[string]string{"content": want})
		if got := packed(); !strings.Contains(got, want) {
			t.Fatalf("ask right after PUT #%d packs no %q:\n%s", i, want, got)
		}
	}

	// pr-worker or another replica writes straight to the store.
	st, dev := devStore(t, dbURL)
	const elsewhere = "출시 담당은 이영희"
	if _, err := st.PutMemoryEntry(ctx, dev.ID, "default", membank.CategoryProgress, elsewhere); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool { return strings.Contains(packed(), elsewhere) })

	// Thread checkpoints go through the batched writer: two asks on one
	// thread are its steps 0 and 1, with no warning.
	for step := range 2 {
		var res struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(call(http.MethodPost, "/v1/meetings/"+m.ID+"/ask",
			map[string]string{"question": "그건 누가 맡아?", "thread_id": "e2e-thread"}), &res); err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			if strings.Contains(w, "not saved") {
				t.Fatalf("ask %d: %s", step, w)
			}
		}
		cp, err := st.LatestCheckpoint(ctx, dev.ID, m.ID, "e2e-thread")
		if err != nil || cp.Step != step {
			t.Fatalf("after ask %d the thread's last step is %d (%v)", step, cp.Step, err)
		}
	}
}
