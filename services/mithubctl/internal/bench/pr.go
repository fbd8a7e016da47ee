package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// PROptions shape the PR benchmark.
type PROptions struct {
	// Meetings is how many meetings get a PR (default 100).
	Meetings int
	// Turns per meeting (default 500).
	Turns int
	// DataDir is the QMSum directory; its val split supplies the text.
	DataDir string
	// Timeout bounds the wait for the worker (default 30m).
	Timeout time.Duration
}

func (o PROptions) withDefaults() PROptions {
	if o.Meetings <= 0 {
		o.Meetings = 100
	}
	if o.Turns <= 0 {
		o.Turns = 500
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Minute
	}
	return o
}

// PRResult is what the benchmark measured.
type PRResult struct {
	Request   Percentiles
	PRs       int
	Failed    int
	Span      time.Duration // first PR created → last PR finished
	PerMinute float64
}

// PR measures generate-pr and the worker: it fills Meetings meetings with
// Turns QMSum turns each through agent-api, waits until their topics are
// done, then times POST /v1/meetings/{id}/generate-pr?wait=false for each
// (no L1 wait: the request syncs, snapshots and enqueues), and waits until
// pr-worker has built every PR. Throughput is PRs over the span from the
// first PR's creation to the last one's finish.
func PR(ctx context.Context, client *apiclient.Client, o PROptions, out io.Writer) (PRResult, error) {
	o = o.withDefaults()
	text, err := corpus(o.DataDir, o.Turns)
	if err != nil {
		return PRResult{}, err
	}
	ids, err := fillMeetings(ctx, client, o.Meetings, "bench-pr",
		func(int) []apiclient.Utterance { return text },
		func(ctx context.Context, id string, _ int) error { _, err := client.ContextWaited(ctx, id); return err })
	if err != nil {
		return PRResult{}, err
	}
	var (
		lat   = make([]time.Duration, 0, len(ids))
		prIDs = make([]string, 0, len(ids))
	)
	for _, id := range ids {
		start := time.Now()
		ref, err := client.GeneratePR(ctx, id, false)
		if err != nil {
			return PRResult{}, err
		}
		lat = append(lat, time.Since(start))
		prIDs = append(prIDs, ref.PRID)
	}
	res := PRResult{Request: percentiles(lat), PRs: len(prIDs)}
	rows, err := waitPRs(ctx, client, o, prIDs)
	if err != nil {
		return res, err
	}
	first, last := rows[0].CreatedAt, time.Time{}
	for _, r := range rows {
		if r.CreatedAt.Before(first) {
			first = r.CreatedAt
		}
		if r.FinishedAt != nil && r.FinishedAt.After(last) {
			last = *r.FinishedAt
		}
		if r.Status != apiclient.PRSucceeded {
			res.Failed++
		}
	}
	res.Span = last.Sub(first)
	if res.Span > 0 {
		res.PerMinute = float64(len(rows)) / res.Span.Minutes()
	}
	res.markdown(out, o)
	return res, nil
}

// waitPRs polls the PRs until none is queued or running.
func waitPRs(ctx context.Context, client *apiclient.Client, o PROptions, ids []string) ([]apiclient.PR, error) {
	deadline := time.Now().Add(o.Timeout)
	rows := make([]apiclient.PR, len(ids))
	done := make([]bool, len(ids))
	for left := len(ids); left > 0; {
		for i, id := range ids {
			if done[i] {
				continue
			}
			pr, err := client.GetPR(ctx, id)
			if err != nil {
				return nil, err
			}
			rows[i] = pr
			if pr.Done() {
				done[i] = true
				left--
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d PRs still open after %v", left, o.Timeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return rows, nil
}

func (r PRResult) markdown(w io.Writer, o PROptions) {
	fmt.Fprintf(w, "PRs: %d meetings × %d turns (local provider)\n\n", o.Meetings, o.Turns)
	fmt.Fprintln(w, "| measure | n | p50 | p99 | max | goal |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	r.Request.row(w, "POST generate-pr?wait=false (client)", "p99 < 50 ms")
	fmt.Fprintf(w, "\npr:generate throughput: %d PRs in %.1f s = %.1f PRs/min (%d failed)\n",
		r.PRs, r.Span.Seconds(), r.PerMinute, r.Failed)
}
