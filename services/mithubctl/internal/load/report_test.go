package load

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// A report with a fault window and RSS series: the Markdown names the
// recovery and the growth, the summary carries them for scripts, and a
// lost utterance turns the verdict.
func TestReportWithFault(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	down := errors.New("connection refused")
	results := map[string][]Result{
		EPUtterances: {{at(1), at(1.01), nil}, {at(2), at(2.5), down}, {at(3), at(3.5), down}, {at(5.2), at(5.45), nil}},
		EPAsk:        {{at(1), at(1.2), nil}, {at(2.5), at(2.6), &apiclient.APIError{Status: 503, Code: "unavailable"}}},
	}
	finished := at(9)
	prs := map[string]apiclient.PR{
		"pr-1": {ID: "pr-1", Status: apiclient.PRSucceeded, CreatedAt: at(1.5), FinishedAt: &finished},
		"pr-2": {ID: "pr-2", Status: apiclient.PRSucceeded, CreatedAt: at(0.1), FinishedAt: ptr(at(0.5))},
	}
	rep := &Report{
		Options:    Options{Meetings: 2, Interval: time.Second, Duration: 10 * time.Second, Warmup: 2 * time.Second, KoreanEvery: 5}.withDefaults(),
		Started:    t0,
		Traffic:    10 * time.Second,
		Endpoints:  Summarize(results),
		Throughput: throughput(results, 10*time.Second),
		RSS: []RSSSeries{{Proc: Proc{"agent-api", 1}, Samples: []RSSSample{
			{0, 40 << 10}, {2 * time.Second, 50 << 10}, {10 * time.Second, 52 << 10}}}},
		Completeness: Completeness{Meetings: 2, Generated: 20, Acked: 20, Stored: 20, DBChecked: true, PRsAcked: 2, PRsSucceeded: 2, MeetingsWithPR: 2},
		Fault:        faultReport(Fault{Start: at(2), End: at(5)}, results, prs),
	}
	var md, sum strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- " + EPUtterances + ": 2 errors, first success 450.0 ms after the fault ended",
		"- 1 PRs in flight during the fault, the last done 4.00 s after it ended",
		"agent-api +4.0% (50.0 → 52.0 MiB, 0:02 → 0:10)",
		"Errors by kind: " + EPUtterances + ": connection refused × 2; " + EPAsk + ": HTTP 503 unavailable × 1.",
		"PASS: nothing lost or doubled.",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"ok=true\n", "errors=3\n", "recover_ms_utterances=450\n", "recover_ms_ask=none\n",
		"fault_errors_ask=1\n", "prs_in_flight=1\n", "prs_done_after_ms=4000\n", "rss_growth_pct_agent_api=4.0\n",
		"error_kinds=post connection refused ×2, ask HTTP 503 unavailable ×1\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}

	rep.Completeness.Lost = 1
	rep.Completeness.problem("meeting m: acknowledged segment s is not stored")
	md.Reset()
	sum.Reset()
	_ = rep.WriteMarkdown(&md)
	_ = rep.WriteSummary(&sum)
	if !strings.Contains(md.String(), "FAIL:\n- meeting m: acknowledged segment s is not stored") || !strings.Contains(sum.String(), "ok=false\n") {
		t.Fatalf("verdict after a loss:\n%s\n%s", md.String(), sum.String())
	}
}

func ptr[T any](v T) *T { return &v }
