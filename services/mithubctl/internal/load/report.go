package load

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// Report is what a run measured.
type Report struct {
	Options Options
	Started time.Time
	// Traffic is the length of the sending phase, Elapsed the whole run.
	Traffic, Elapsed time.Duration
	Endpoints        []EndpointStats
	Throughput       Throughput
	RSS              []RSSSeries
	// RSSTrafficEnd is when, on the RSS clock, the traffic ended; growth
	// is measured up to the sample taken then.
	RSSTrafficEnd time.Duration
	Completeness  Completeness
	// Fault is set when a marks file held a fault window.
	Fault *FaultReport
	// Meetings are what each meeting was sent; PRs the last state of every
	// PR id the run got.
	Meetings []MeetingRecord
	PRs      map[string]apiclient.PR
}

// Throughput is what the traffic phase achieved per second.
type Throughput struct {
	// Requests is every successful request per second of traffic.
	Requests float64
	// Utterances acknowledged per second, Asks answered per second.
	Utterances, Asks float64
}

// throughput counts the successes that started in the traffic phase.
func throughput(results map[string][]Result, traffic time.Duration) Throughput {
	secs := traffic.Seconds()
	if secs <= 0 {
		return Throughput{}
	}
	var t Throughput
	for ep, rs := range results {
		if ep == EPAskFirst {
			continue
		}
		ok := 0
		for _, r := range rs {
			if r.Err == nil {
				ok++
			}
		}
		t.Requests += float64(ok) / secs
		switch ep {
		case EPUtterances:
			t.Utterances = float64(ok) / secs
		case EPAsk:
			t.Asks = float64(ok) / secs
		}
	}
	return t
}

// FaultReport is how the run fared around an injected fault.
type FaultReport struct {
	Fault Fault
	// Recoveries of the utterance, ask and generate-pr endpoints.
	Recoveries []Recovery
	// PRsInFlight were created before the fault ended and finished after
	// it began; PRsDoneAfter is when the last of them finished, relative to
	// the fault's end.
	PRsInFlight  int
	PRsDoneAfter time.Duration
}

func faultReport(f Fault, results map[string][]Result, prs map[string]apiclient.PR) *FaultReport {
	fr := &FaultReport{Fault: f}
	for _, ep := range []string{EPUtterances, EPAsk, EPGeneratePR} {
		if len(results[ep]) > 0 {
			fr.Recoveries = append(fr.Recoveries, RecoveryOf(ep, results[ep], f))
		}
	}
	for _, pr := range prs {
		if pr.FinishedAt == nil || pr.CreatedAt.After(f.End) || pr.FinishedAt.Before(f.Start) {
			continue
		}
		fr.PRsInFlight++
		fr.PRsDoneAfter = max(fr.PRsDoneAfter, pr.FinishedAt.Sub(f.End))
	}
	return fr
}

// Recovery returns the recovery of endpoint, if measured.
func (f *FaultReport) Recovery(endpoint string) (Recovery, bool) {
	for _, r := range f.Recoveries {
		if r.Endpoint == endpoint {
			return r, true
		}
	}
	return Recovery{}, false
}

// Errors is the number of failed requests.
func (r *Report) Errors() int {
	n := 0
	for _, e := range r.Endpoints {
		n += e.Errors
	}
	return n
}

func ms(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
}

// WriteMarkdown writes the report as Markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	o := r.Options
	var b strings.Builder
	fmt.Fprintf(&b, "### Load: %d meetings × one utterance every %s for %s", o.Meetings, o.Interval, o.Duration)
	if o.AskEvery > 0 {
		fmt.Fprintf(&b, ", a question every %s per meeting", o.AskEvery)
	}
	if o.PREvery > 0 {
		fmt.Fprintf(&b, ", generate-pr every %s per meeting", o.PREvery)
	}
	if o.PRAtEnd {
		b.WriteString(", every meeting ended and its PR built at the end")
	}
	fmt.Fprintf(&b, "\n\nStarted %s; traffic %s, whole run %s.", r.Started.UTC().Format(time.RFC3339),
		r.Traffic.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond))
	if o.KoreanEvery > 0 {
		fmt.Fprintf(&b, " One utterance and one question in %d are Korean.", o.KoreanEvery)
	}
	b.WriteString("\n\n")

	b.WriteString("| endpoint | requests | errors | p50 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, e := range r.Endpoints {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s |\n", e.Endpoint, e.Requests, e.Errors, ms(e.P50), ms(e.P95), ms(e.P99), ms(e.Max))
	}
	t := r.Throughput
	fmt.Fprintf(&b, "\nThroughput during the traffic phase: %.1f successful requests/s, %.1f utterance posts/s, %.2f answered asks/s.\n",
		t.Requests, t.Utterances, t.Asks)

	if kinds := r.errorKinds(); kinds != "" {
		fmt.Fprintf(&b, "\nErrors by kind: %s.\n", kinds)
	}
	r.writeCompleteness(&b)
	r.writeRSS(&b)
	r.writeFault(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) errorKinds() string {
	return strings.Join(r.eachErrorKind(func(endpoint, kind string, n int) string {
		return fmt.Sprintf("%s: %s × %d", endpoint, kind, n)
	}), "; ")
}

// shortErrorKinds lists error kinds with short endpoint names, for the
// summary.
func (r *Report) shortErrorKinds() string {
	short := map[string]string{EPCreate: "create", EPUtterances: "post", EPAsk: "ask", EPGeneratePR: "generate-pr",
		EPEnd: "end", EPGetPR: "get-pr"}
	parts := r.eachErrorKind(func(endpoint, kind string, n int) string {
		return fmt.Sprintf("%s %s ×%d", cmp.Or(short[endpoint], endpoint), kind, n)
	})
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// eachErrorKind formats every endpoint's error kinds, kinds in name order.
func (r *Report) eachErrorKind(format func(endpoint, kind string, n int) string) []string {
	var parts []string
	for _, e := range r.Endpoints {
		kinds := make([]string, 0, len(e.ErrorKinds))
		for k := range e.ErrorKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			parts = append(parts, format(e.Endpoint, k, e.ErrorKinds[k]))
		}
	}
	return parts
}

func (r *Report) writeCompleteness(b *strings.Builder) {
	c := r.Completeness
	how := "the API's utterance counters"
	if c.DBChecked {
		how = "segment ids and seqs in PostgreSQL"
	}
	fmt.Fprintf(b, "\nCompleteness (%s): %d utterances sent, %d acknowledged with a 2xx, %d stored; lost %d, doubled %d, "+
		"stored without an acknowledgement %d, never acknowledged %d, meetings with seq gaps %d.\n",
		how, c.Generated, c.Acked, c.Stored, c.Lost, c.Doubled, c.StoredUnacked, c.Unacked, c.SeqProblems)
	if c.PRsAcked > 0 || c.PRsUnacked > 0 {
		fmt.Fprintf(b, "PRs: %d ids returned, %d succeeded, %d failed, %d not done; %d meetings of %d have a PR",
			c.PRsAcked, c.PRsSucceeded, c.PRsFailed, c.PRsNotDone, c.MeetingsWithPR, c.Meetings)
		if c.DBChecked {
			fmt.Fprintf(b, "; %d PR rows the client got no id for (%d of them built)", c.PRsUnacked, c.PRsUnackedSucceeded)
		}
		b.WriteString(".\n")
	}
	verdict := "PASS: nothing lost or doubled."
	if !c.OK() {
		verdict = "FAIL:\n"
		for _, p := range c.Problems {
			verdict += "- " + p + "\n"
		}
	}
	fmt.Fprintf(b, "%s\n", strings.TrimRight(verdict, "\n"))
}

func (r *Report) writeRSS(b *strings.Builder) {
	if len(r.RSS) == 0 {
		return
	}
	b.WriteString("\nRSS (MiB) from /proc/<pid>/status:\n\n| time |")
	for _, s := range r.RSS {
		fmt.Fprintf(b, " %s |", s.Proc.Name)
	}
	b.WriteString("\n|---|")
	for range r.RSS {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i := range r.RSS[0].Samples {
		at := r.RSS[0].Samples[i].At
		fmt.Fprintf(b, "| %s |", fmtClock(at))
		for _, s := range r.RSS {
			if i < len(s.Samples) && s.Samples[i].KB > 0 {
				fmt.Fprintf(b, " %.1f |", float64(s.Samples[i].KB)/1024)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\nGrowth from the %s warm-up to the end of the traffic:", r.Options.Warmup)
	for i, s := range r.RSS {
		sep := ","
		if i == 0 {
			sep = ""
		}
		base, last, g, ok := s.Growth(r.Options.Warmup, r.RSSTrafficEnd)
		if !ok {
			fmt.Fprintf(b, "%s %s n/a", sep, s.Proc.Name)
			continue
		}
		fmt.Fprintf(b, "%s %s %+.1f%% (%.1f → %.1f MiB, %s → %s)", sep, s.Proc.Name, 100*g,
			float64(base.KB)/1024, float64(last.KB)/1024, fmtClock(base.At), fmtClock(last.At))
	}
	b.WriteString(".\n")
}

func fmtClock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func (r *Report) writeFault(b *strings.Builder) {
	f := r.Fault
	if f == nil {
		return
	}
	fmt.Fprintf(b, "\nFault from %s to %s (%s):\n", f.Fault.Start.UTC().Format("15:04:05.000"),
		f.Fault.End.UTC().Format("15:04:05.000"), ms(f.Fault.End.Sub(f.Fault.Start)))
	for _, rec := range f.Recoveries {
		first := "no success after the fault"
		if rec.Recovered {
			first = "first success " + ms(rec.FirstOK) + " after the fault ended"
		}
		fmt.Fprintf(b, "- %s: %d errors, %s\n", rec.Endpoint, rec.Errors, first)
	}
	if f.PRsInFlight > 0 {
		fmt.Fprintf(b, "- %d PRs in flight during the fault, the last done %s after it ended\n", f.PRsInFlight, ms(f.PRsDoneAfter))
	}
}

// WriteSummary writes key=value lines for scripts; only error_kinds has
// spaces in its value.
func (r *Report) WriteSummary(w io.Writer) error {
	c := r.Completeness
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s=%v\n", k, v) }
	kv("ok", c.OK())
	kv("errors", r.Errors())
	kv("sent", c.Generated)
	kv("acked", c.Acked)
	kv("stored", c.Stored)
	kv("lost", c.Lost)
	kv("doubled", c.Doubled)
	kv("stored_unacked", c.StoredUnacked)
	kv("unacked", c.Unacked)
	kv("prs_acked", c.PRsAcked)
	kv("prs_succeeded", c.PRsSucceeded)
	kv("prs_failed", c.PRsFailed)
	kv("prs_not_done", c.PRsNotDone)
	kv("prs_unacked", c.PRsUnacked)
	kv("prs_unacked_built", c.PRsUnackedSucceeded)
	kv("error_kinds", r.shortErrorKinds())
	kv("meetings", c.Meetings)
	kv("meetings_with_pr", c.MeetingsWithPR)
	for _, s := range r.RSS {
		if _, _, g, ok := s.Growth(r.Options.Warmup, r.RSSTrafficEnd); ok {
			kv("rss_growth_pct_"+strings.ReplaceAll(s.Proc.Name, "-", "_"), fmt.Sprintf("%.1f", 100*g))
		}
	}
	if f := r.Fault; f != nil {
		for _, rec := range f.Recoveries {
			key := map[string]string{EPUtterances: "utterances", EPAsk: "ask", EPGeneratePR: "generate_pr"}[rec.Endpoint]
			kv("fault_errors_"+key, rec.Errors)
			if rec.Recovered {
				kv("recover_ms_"+key, rec.FirstOK.Milliseconds())
			} else {
				kv("recover_ms_"+key, "none")
			}
		}
		kv("prs_in_flight", f.PRsInFlight)
		kv("prs_done_after_ms", f.PRsDoneAfter.Milliseconds())
	}
	_, err := io.WriteString(w, b.String())
	return err
}
