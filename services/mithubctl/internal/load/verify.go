package load

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// StoredSegment is one transcript row of a meeting.
type StoredSegment struct {
	SegmentID string
	Seq       int
}

// Store reads what PostgreSQL holds for a meeting, for the exact
// completeness check.
type Store interface {
	Segments(ctx context.Context, meetingID string) ([]StoredSegment, error)
	// PRStatuses maps each of the meeting's PR ids to its status.
	PRStatuses(ctx context.Context, meetingID string) (map[string]string, error)
}

// Completeness is the end-of-run check: what the API acknowledged against
// what is stored.
type Completeness struct {
	Meetings int
	// Generated utterances; Acked got a 2xx answer; Unacked were still
	// unacknowledged when the run gave up delivering them.
	Generated, Acked, Unacked int
	// Stored rows of the run's meetings.
	Stored int
	// Lost: acknowledged but not stored. Doubled: stored more than once,
	// or rows that the run never sent. StoredUnacked: stored although the
	// answer never came (allowed: the request may have been cut after the
	// commit).
	Lost, Doubled, StoredUnacked int
	// SeqProblems counts meetings whose seqs are not exactly 0..n-1.
	SeqProblems int
	// DBChecked: segment ids and PR rows were compared in PostgreSQL;
	// otherwise the API's counters were.
	DBChecked bool

	// PRsAcked are the distinct PR ids answered with a 2xx; each should
	// end succeeded. PRsNotDone were still queued or running at the end,
	// PRsFailed ended failed or rejected. PRsUnacked are rows the client
	// never got an id for, PRsUnackedSucceeded those that were built.
	PRsAcked, PRsSucceeded, PRsNotDone, PRsFailed int
	PRsUnacked, PRsUnackedSucceeded               int
	// MeetingsWithPR counts meetings with at least one succeeded PR.
	MeetingsWithPR int

	// Problems describes the first few issues found.
	Problems []string
}

// OK reports whether nothing was lost or doubled.
func (c Completeness) OK() bool {
	return c.Lost == 0 && c.Doubled == 0 && c.SeqProblems == 0 && c.PRsNotDone == 0 && c.PRsFailed == 0 &&
		c.PRsUnackedSucceeded == 0 && len(c.Problems) == 0
}

const maxProblems = 10

func (c *Completeness) problem(format string, args ...any) {
	if len(c.Problems) < maxProblems {
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
}

// MeetingRecord is what a run sent to one meeting.
type MeetingRecord struct {
	ID string
	// Prefix and Generated name the segment ids sent: SegmentID(Prefix, n)
	// for n < Generated.
	Prefix    string
	Generated int
	// Acked holds the segment ids answered with a 2xx; Unacked counts those
	// never acknowledged.
	Acked   map[string]bool
	Unacked int
	// PRs are the distinct PR ids the meeting got.
	PRs []string
}

// records snapshots the meetings' state.
func records(ms []*meetingRun) []MeetingRecord {
	out := make([]MeetingRecord, len(ms))
	for i, m := range ms {
		m.mu.Lock()
		acked := make(map[string]bool, len(m.acked))
		for id := range m.acked {
			acked[id] = true
		}
		out[i] = MeetingRecord{ID: m.id, Prefix: m.prefix, Generated: m.generated, Acked: acked,
			Unacked: len(m.pending), PRs: slices.Clone(m.prs)}
		m.mu.Unlock()
	}
	return out
}

// Check compares what the meetings were sent and acknowledged with what is
// stored: segment ids, seqs and PR rows in PostgreSQL when st is not nil,
// else the API's utterance counters. prs holds the PRs' last known state.
func Check(ctx context.Context, api API, st Store, recs []MeetingRecord, prs map[string]apiclient.PR) Completeness {
	c := Completeness{Meetings: len(recs), DBChecked: st != nil}
	vctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, m := range recs {
		c.Generated += m.Generated
		c.Acked += len(m.Acked)
		c.Unacked += m.Unacked
		if st != nil {
			checkRows(vctx, st, m, &c)
		} else {
			checkCounters(vctx, api, m, &c)
		}
		checkPRs(vctx, st, m, prs, &c)
	}
	return c
}

// checkRows compares segment ids in PostgreSQL.
func checkRows(ctx context.Context, st Store, m MeetingRecord, c *Completeness) {
	var rows []StoredSegment
	if err := retry(ctx, func() error {
		var err error
		rows, err = st.Segments(ctx, m.ID)
		return err
	}); err != nil {
		c.problem("meeting %s: read transcripts: %v", m.ID, err)
		return
	}
	c.Stored += len(rows)
	count := make(map[string]int, len(rows))
	seqs := make([]int, 0, len(rows))
	for _, row := range rows {
		count[row.SegmentID]++
		seqs = append(seqs, row.Seq)
	}
	for id := range m.Acked {
		if count[id] == 0 {
			c.Lost++
			c.problem("meeting %s: acknowledged segment %s is not stored", m.ID, id)
		}
	}
	sent := make(map[string]bool, m.Generated)
	for n := range m.Generated {
		sent[SegmentID(m.Prefix, n)] = true
	}
	for id, n := range count {
		switch {
		case n > 1:
			c.Doubled += n - 1
			c.problem("meeting %s: segment %s stored %d times", m.ID, id, n)
		case !sent[id]:
			c.Doubled++
			c.problem("meeting %s: stored segment %s was never sent", m.ID, id)
		case !m.Acked[id]:
			c.StoredUnacked++
		}
	}
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != i {
			c.SeqProblems++
			c.problem("meeting %s: seq %d at position %d (want 0..%d without gaps)", m.ID, s, i, len(seqs)-1)
			break
		}
	}
}

// checkCounters compares the API's utterance counter with the counts.
func checkCounters(ctx context.Context, api API, m MeetingRecord, c *Completeness) {
	var mt apiclient.Meeting
	if err := retry(ctx, func() error {
		var err error
		mt, err = api.GetMeeting(ctx, m.ID)
		return err
	}); err != nil {
		c.problem("meeting %s: %v", m.ID, err)
		return
	}
	stored, acked := int(mt.Counters.Utterances), len(m.Acked)
	c.Stored += stored
	if stored < acked {
		c.Lost += acked - stored
		c.problem("meeting %s: %d utterances acknowledged, %d stored", m.ID, acked, stored)
	}
	if stored > m.Generated {
		c.Doubled += stored - m.Generated
		c.problem("meeting %s: %d utterances sent, %d stored", m.ID, m.Generated, stored)
	}
	if stored > acked {
		c.StoredUnacked += min(stored, m.Generated) - acked
	}
}

// checkPRs checks that every PR id the meeting got ended succeeded and,
// with st, that no other PR of the meeting was built.
func checkPRs(ctx context.Context, st Store, m MeetingRecord, prs map[string]apiclient.PR, c *Completeness) {
	succeeded := 0
	for _, id := range m.PRs {
		c.PRsAcked++
		pr, ok := prs[id]
		switch {
		case !ok || !pr.Done():
			c.PRsNotDone++
			c.problem("meeting %s: PR %s not done at the end (status %q)", m.ID, id, pr.Status)
		case pr.Status == apiclient.PRSucceeded || pr.Status == apiclient.PRApproved:
			c.PRsSucceeded++
			succeeded++
		default:
			c.PRsFailed++
			c.problem("meeting %s: PR %s ended %s: %s", m.ID, id, pr.Status, pr.Error)
		}
	}
	if st != nil {
		var rows map[string]string
		if err := retry(ctx, func() error {
			var err error
			rows, err = st.PRStatuses(ctx, m.ID)
			return err
		}); err != nil {
			c.problem("meeting %s: read PRs: %v", m.ID, err)
			return
		}
		for id, status := range rows {
			if slices.Contains(m.PRs, id) {
				continue
			}
			c.PRsUnacked++
			if status == apiclient.PRSucceeded || status == apiclient.PRApproved {
				c.PRsUnackedSucceeded++
				succeeded++
				c.problem("meeting %s: PR %s was built but its id never reached the client", m.ID, id)
			}
		}
	}
	if succeeded > 0 {
		c.MeetingsWithPR++
	}
}
