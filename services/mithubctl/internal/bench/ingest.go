package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tokens"
)

// IngestOptions shape the ingest benchmark.
type IngestOptions struct {
	// Meetings written concurrently (default 20).
	Meetings int
	// Batch is utterances per request or COPY (default 50).
	Batch int
	// PerMeeting is utterances written into each meeting (default 500).
	PerMeeting int
	// Rounds alternates API and COPY runs this many times (default 3).
	Rounds int
	// DataDir is the QMSum directory; its val split supplies the text.
	DataDir string
	// Tenant owns the COPY meetings; it should be the API key's tenant.
	Tenant string
}

func (o IngestOptions) withDefaults() IngestOptions {
	if o.Meetings <= 0 {
		o.Meetings = 20
	}
	if o.Batch <= 0 {
		o.Batch = 50
	}
	if o.PerMeeting <= 0 {
		o.PerMeeting = 500
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Tenant == "" {
		o.Tenant = "dev"
	}
	return o
}

// Round is one measured pair.
type Round struct {
	API, Copy float64 // utterances per second
}

// Ratio is API throughput over raw COPY throughput.
func (r Round) Ratio() float64 { return r.API / r.Copy }

// Ingest runs the benchmark and writes a markdown report to out.
func Ingest(ctx context.Context, client *apiclient.Client, st *store.Store, o IngestOptions, out io.Writer) ([]Round, error) {
	o = o.withDefaults()
	text, err := corpus(o.DataDir, o.Meetings*o.PerMeeting)
	if err != nil {
		return nil, err
	}
	tenant, err := st.EnsureTenant(ctx, o.Tenant)
	if err != nil {
		return nil, err
	}
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	var rounds []Round
	for r := range o.Rounds {
		utts := make([][]apiclient.Utterance, o.Meetings)
		for m := range utts {
			utts[m] = text[m*o.PerMeeting : (m+1)*o.PerMeeting]
			for i := range utts[m] {
				utts[m][i].SegmentID = fmt.Sprintf("bench-r%d-m%d-%05d", r, m, i)
			}
		}
		apiRate, err := runAPI(ctx, client, utts, o.Batch)
		if err != nil {
			return rounds, fmt.Errorf("round %d, API: %w", r+1, err)
		}
		copyRate, err := runCopy(ctx, st, tenant.ID, counter, utts, o.Batch)
		if err != nil {
			return rounds, fmt.Errorf("round %d, COPY: %w", r+1, err)
		}
		rounds = append(rounds, Round{API: apiRate, Copy: copyRate})
	}
	report(out, o, rounds)
	return rounds, nil
}

// corpus returns n utterances of real meeting text, cycling through the
// QMSum val meetings.
func corpus(dir string, n int) ([]apiclient.Utterance, error) {
	files, err := filepath.Glob(filepath.Join(dir, "val", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no QMSum meetings under %s/val", dir)
	}
	slices.Sort(files)
	var all []apiclient.Utterance
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, err
		}
		all = append(all, qmsum.Utterances(m, "b")...)
	}
	out := make([]apiclient.Utterance, n)
	for i := range out {
		out[i] = all[i%len(all)]
	}
	return out, nil
}

// runAPI writes every meeting's batches through agent-api, one writer per
// meeting, and returns utterances per second.
func runAPI(ctx context.Context, client *apiclient.Client, utts [][]apiclient.Utterance, batch int) (float64, error) {
	ids := make([]string, len(utts))
	for i := range ids {
		m, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: fmt.Sprint("bench ", i), Language: "en"})
		if err != nil {
			return 0, err
		}
		ids[i] = m.ID
	}
	return timed(len(utts), func(m int) (int, error) {
		n := 0
		for b := 0; b < len(utts[m]); b += batch {
			res, err := client.PostUtterances(ctx, ids[m], utts[m][b:min(b+batch, len(utts[m]))])
			if err != nil {
				return n, err
			}
			n += res.Inserted
		}
		return n, nil
	})
}

var copyColumns = []string{"tenant_id", "meeting_id", "seq", "segment_id", "speaker_id", "speaker_name",
	"text", "start_ms", "end_ms", "confidence", "tokens", "source"}

// runCopy writes the same rows with pgx CopyFrom straight into
// transcripts, one COPY per batch, one writer per meeting. Token counts are
// computed before the clock starts.
func runCopy(ctx context.Context, st *store.Store, tenantID string, counter tokens.Counter, utts [][]apiclient.Utterance, batch int) (float64, error) {
	ids := make([]string, len(utts))
	rows := make([][][]any, len(utts))
	for m := range utts {
		mt, err := st.CreateMeeting(ctx, tenantID, store.NewMeeting{Title: fmt.Sprint("bench copy ", m), Language: "en"})
		if err != nil {
			return 0, err
		}
		ids[m] = mt.ID
		for i, u := range utts[m] {
			rows[m] = append(rows[m], []any{tenantID, mt.ID, int32(i), u.SegmentID, u.SpeakerID, u.SpeakerName,
				u.Text, u.StartMS, u.EndMS, float32(u.Confidence), int32(counter.Count(u.Text)), "bench"})
		}
	}
	pool := st.Pool()
	return timed(len(utts), func(m int) (int, error) {
		n := 0
		for b := 0; b < len(rows[m]); b += batch {
			c, err := pool.CopyFrom(ctx, pgx.Identifier{"transcripts"}, copyColumns,
				pgx.CopyFromRows(rows[m][b:min(b+batch, len(rows[m]))]))
			if err != nil {
				return n, err
			}
			n += int(c)
		}
		return n, nil
	})
}

// timed runs work for each meeting concurrently and returns rows per
// second over the wall time of the slowest.
func timed(meetings int, work func(m int) (int, error)) (float64, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
		errs  []error
	)
	start := time.Now()
	for m := range meetings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := work(m)
			mu.Lock()
			defer mu.Unlock()
			total += n
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return float64(total) / elapsed.Seconds(), nil
}

func report(w io.Writer, o IngestOptions, rounds []Round) {
	fmt.Fprintf(w, "ingest: %d meetings x %d utterances, batches of %d, %d rounds\n\n", o.Meetings, o.PerMeeting, o.Batch, len(rounds))
	fmt.Fprintln(w, "| round | POST utterances (utt/s) | raw pgx.CopyFrom (utt/s) | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|")
	ratios := make([]float64, len(rounds))
	for i, r := range rounds {
		ratios[i] = r.Ratio()
		fmt.Fprintf(w, "| %d | %.0f | %.0f | %.2f |\n", i+1, r.API, r.Copy, r.Ratio())
	}
	slices.Sort(ratios)
	fmt.Fprintf(w, "\nmedian ratio API/COPY: %.2f (goal >= 0.50)\n", ratios[len(ratios)/2])
}
