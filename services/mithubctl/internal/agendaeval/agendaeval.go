// Package agendaeval scores the PR agenda against QMSum's annotated
// topics. Each meeting goes through the same pipeline as a live one, with
// the local provider and no services: the turns (with times synthesized
// as replay does) feed a context engine in 25-turn chunks, the meeting is
// flushed, and prdoc's local extractor builds the PR from the topic
// snapshot and the turns.
//
// An annotated topic counts as matched when an agenda item that overlaps
// one of its annotated turn spans shares at least MinShared content
// keywords with the topic's text. Keywords are textutil terms (lowercase,
// stop words dropped, Korean particles stripped) with English plurals
// folded; an agenda item's keywords come from its title, keywords and
// summary. Coverage is matched topics over annotated topics, pooled over
// the meetings.
//
// Beside the agenda built on the L1 topics, the same run builds two
// baseline agendas through the same agenda code (sub-items, headings, key
// terms) from other topics, each summarised by the local summariser as L1
// topics are: an even split of the turns into the annotated topic count,
// and one topic for the whole meeting (so its items are the agenda's
// TextTiling sub-items alone). Coverage is reported with the number of
// items beside it: more, longer-keyworded items match more topics.
//
// Headings are scored on their own: an item overlapping an annotated
// topic is titled well when its title, a heading and not a list of key
// terms, shares a keyword with the topic it overlaps most. The same L1
// agenda built without the learned heading words (prdoc.HeadingWords),
// which weigh its headings and its key terms, is the baseline for both.
package agendaeval

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/textutil"
)

// Options shape a run.
type Options struct {
	// Meetings names the meeting files to use ("Bed002"); empty means the
	// first Limit files of the directory in name order.
	Meetings []string
	// Limit is how many meetings to take when Meetings is empty
	// (default 5).
	Limit int
	// MinShared is how many keywords a match needs (default 1).
	MinShared int
	// MaxDecisions caps the decisions of the local extractor and the
	// cue-only baseline (default prdoc.MaxDecisions).
	MaxDecisions int
	// Progress gets one line per meeting; nil for none.
	Progress io.Writer
}

// TopicResult is one annotated topic.
type TopicResult struct {
	Topic   string
	Matched bool
	// Shared are the keywords the best agenda item shares with it.
	Shared []string
	// Item is the best agenda item's title.
	Item string
}

// MeetingResult is one meeting.
type MeetingResult struct {
	Name      string
	Turns     int
	Agenda    int
	Decisions int
	Actions   int
	Questions int
	Topics    []TopicResult
	// DecisionRuns are the decision lists scored against the meeting's
	// decision queries, the local extractor's first, then the baselines'.
	DecisionRuns []DecisionRun
	// AgendaRuns are the agendas scored against the annotated topics, the
	// one on the L1 topics first, then the baselines'.
	AgendaRuns []AgendaRun
}

// AgendaRun is one agenda of a meeting, scored.
type AgendaRun struct {
	Name    string
	Items   int
	Matched int
	// Placed are the items that overlap an annotated topic, Titled those
	// of them whose title alone shares a keyword with the annotated topic
	// they overlap most.
	Placed, Titled int
}

// Agenda names, in report order.
const (
	AgendaL1    = "L1 topics (local)"
	AgendaPlain = "L1 topics, without the learned heading words"
	AgendaEven  = "even split into the annotated count"
	AgendaWhole = "one topic, sub-items only"
)

// Matched counts the meeting's matched topics.
func (m MeetingResult) Matched() int {
	n := 0
	for _, t := range m.Topics {
		if t.Matched {
			n++
		}
	}
	return n
}

// Report is a whole run.
type Report struct {
	MinShared int
	Meetings  []MeetingResult
}

// Coverage is matched over annotated topics, pooled.
func (r Report) Coverage() (matched, total int) {
	for _, m := range r.Meetings {
		matched += m.Matched()
		total += len(m.Topics)
	}
	return matched, total
}

// Run evaluates meetings of dir.
func Run(ctx context.Context, dir string, o Options) (Report, error) {
	if o.Limit <= 0 {
		o.Limit = 5
	}
	if o.MinShared <= 0 {
		o.MinShared = 1
	}
	if o.MaxDecisions <= 0 {
		o.MaxDecisions = prdoc.MaxDecisions
	}
	files, err := meetingFiles(dir, o)
	if err != nil {
		return Report{}, err
	}
	rep := Report{MinShared: o.MinShared}
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return rep, err
		}
		res, err := evalMeeting(ctx, m, o)
		if err != nil {
			return rep, fmt.Errorf("meeting %s: %w", m.Name, err)
		}
		rep.Meetings = append(rep.Meetings, res)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: %d turns, %d agenda items, %d/%d annotated topics matched, %d/%d decision queries cited\n",
				res.Name, res.Turns, res.Agenda, res.Matched(), len(res.Topics), res.DecisionRuns[0].Hits, res.DecisionRuns[0].Queries)
		}
	}
	return rep, nil
}

func meetingFiles(dir string, o Options) ([]string, error) {
	if len(o.Meetings) > 0 {
		out := make([]string, len(o.Meetings))
		for i, n := range o.Meetings {
			out[i] = filepath.Join(dir, strings.TrimSuffix(n, ".json")+".json")
		}
		return out, nil
	}
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return nil, err
	}
	return files[:min(o.Limit, len(files))], nil
}

// nopTopicStore keeps topics only in the engine's memory.
type nopTopicStore struct{}

func (nopTopicStore) SaveTopics(context.Context, string, string, int, []meetingctx.Topic) error {
	return nil
}

// replayedTurns serves the end-of-meeting pass the turns replayed.
type replayedTurns []meetingctx.Turn

func (r replayedTurns) LoadTurns(_ context.Context, _, _ string, upTo int) ([]meetingctx.Turn, error) {
	if upTo >= len(r) {
		return nil, fmt.Errorf("turn %d not replayed (%d turns)", upTo, len(r))
	}
	return r[:upTo+1], nil
}

// chunk is how many turns are applied at a time, as the realtime worker's
// batches would be.
const chunk = 25

// Build runs a QMSum meeting through the local pipeline and returns the
// PR input (turns and topic snapshot) and document. spoken maps turn seqs
// to QMSum turn indices.
func Build(ctx context.Context, m *qmsum.Meeting) (prdoc.Input, prdoc.Document, []int, error) {
	in, err := BuildInput(ctx, m)
	if err != nil {
		return in, prdoc.Document{}, nil, err
	}
	doc, err := prdoc.NewLocal().Extract(ctx, in)
	return in, doc, qmsum.SpokenTurns(m), err
}

// BuildInput runs a QMSum meeting through the local context engine and
// returns the PR input: its turns and topic snapshot.
func BuildInput(ctx context.Context, m *qmsum.Meeting) (prdoc.Input, error) {
	utts := qmsum.Utterances(m, m.Name)
	in := prdoc.Input{MeetingID: m.Name, MeetingTitle: m.Name, Date: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}
	turns := make([]meetingctx.Turn, len(utts))
	for i, u := range utts {
		turns[i] = meetingctx.Turn{Seq: i, SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName,
			Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS}
		in.Turns = append(in.Turns, prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS})
	}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: segment.NewSegmenter(segment.SegmenterConfig{}), Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(64), Store: nopTopicStore{}, Turns: replayedTurns(turns),
	})
	defer eng.Close(time.Minute)
	mgr := meetingctx.New("eval", m.Name, meetingctx.Config{}, eng)
	for s := 0; s < len(turns); s += chunk {
		if _, err := mgr.Apply(turns[s:min(s+chunk, len(turns))]); err != nil {
			return in, err
		}
		mgr.WaitL1(ctx, time.Minute)
	}
	// Ended, as a meeting is when its PR is generated: the topics are the
	// end-of-meeting pass's.
	mgr.Finish()
	if !mgr.WaitL1(ctx, 5*time.Minute) {
		return in, fmt.Errorf("topics not done after 5m")
	}
	for _, t := range mgr.Snapshot().Topics {
		in.Topics = append(in.Topics, prdoc.Topic{ID: t.ID, Title: t.Title, Summary: t.Summary, Keywords: t.Keywords, StartSeq: t.StartSeq, EndSeq: t.EndSeq})
	}
	return in, nil
}

func evalMeeting(ctx context.Context, m *qmsum.Meeting, o Options) (MeetingResult, error) {
	in, err := BuildInput(ctx, m)
	if err != nil {
		return MeetingResult{}, err
	}
	doc, err := prdoc.NewLocalWith(prdoc.LocalOptions{MaxDecisions: o.MaxDecisions}).Extract(ctx, in)
	if err != nil {
		return MeetingResult{}, err
	}
	spoken := qmsum.SpokenTurns(m)
	res := MeetingResult{
		Name: m.Name, Turns: len(in.Turns), Agenda: len(doc.Agenda),
		Decisions: len(doc.Decisions), Actions: len(doc.ActionItems), Questions: len(doc.OpenQuestions),
	}
	for _, t := range m.Topics {
		res.Topics = append(res.Topics, matchTopic(t, doc.Agenda, spoken, o.MinShared))
	}
	l1 := AgendaRun{Name: AgendaL1, Items: len(doc.Agenda), Matched: res.Matched()}
	l1.Placed, l1.Titled = titled(m.Topics, doc.Agenda, spoken)
	plain, err := prdoc.AgendaWith(ctx, in, nil, prdoc.AgendaOptions{PlainHeadings: true})
	if err != nil {
		return MeetingResult{}, fmt.Errorf("%s agenda: %w", AgendaPlain, err)
	}
	res.AgendaRuns = []AgendaRun{l1, scoreAgenda(AgendaPlain, m.Topics, plain, spoken, o.MinShared)}
	n := len(in.Turns)
	for _, b := range []struct {
		name  string
		parts int
	}{{AgendaEven, len(m.Topics)}, {AgendaWhole, 1}} {
		agenda, err := baselineAgenda(ctx, in, max(1, min(b.parts, n)))
		if err != nil {
			return MeetingResult{}, fmt.Errorf("%s agenda: %w", b.name, err)
		}
		res.AgendaRuns = append(res.AgendaRuns, scoreAgenda(b.name, m.Topics, agenda, spoken, o.MinShared))
	}
	res.DecisionRuns, err = decisionRuns(ctx, m, in, doc, spoken, o.MaxDecisions)
	return res, err
}

// scoreAgenda scores an agenda of a meeting against its annotated topics.
func scoreAgenda(name string, topics []qmsum.Topic, agenda []prdoc.AgendaItem, spoken []int, minShared int) AgendaRun {
	run := AgendaRun{Name: name, Items: len(agenda)}
	run.Placed, run.Titled = titled(topics, agenda, spoken)
	for _, t := range topics {
		if matchTopic(t, agenda, spoken, minShared).Matched {
			run.Matched++
		}
	}
	return run
}

// baselineAgenda builds the agenda of in from its turns cut evenly into
// parts topics instead of its L1 topics, each summarised by the local
// summariser.
func baselineAgenda(ctx context.Context, in prdoc.Input, parts int) ([]prdoc.AgendaItem, error) {
	sum := segment.NewSummarizer()
	b := in
	b.Topics = nil
	n := len(in.Turns)
	for k := range parts {
		from, to := k*n/parts, (k+1)*n/parts-1
		s, err := sum.Summarize(ctx, prdoc.ContextTurns(in.Turns[from:to+1]), nil)
		if err != nil {
			return nil, err
		}
		b.Topics = append(b.Topics, prdoc.Topic{ID: fmt.Sprint("even-", k), Title: s.Title, Summary: s.Summary, Keywords: s.Keywords,
			StartSeq: in.Turns[from].Seq, EndSeq: in.Turns[to].Seq})
	}
	return prdoc.Agenda(ctx, b, nil)
}

// matchTopic finds the agenda item overlapping the topic's spans that
// shares the most keywords with it.
func matchTopic(t qmsum.Topic, agenda []prdoc.AgendaItem, spoken []int, minShared int) TopicResult {
	want := Keywords(t.Topic)
	best := TopicResult{Topic: t.Topic}
	for _, a := range agenda {
		if !overlaps(a, t.Spans, spoken) {
			continue
		}
		have := Keywords(a.Title + " " + strings.Join(a.Keywords, " ") + " " + a.Summary)
		var shared []string
		for _, w := range want {
			if slices.Contains(have, w) {
				shared = append(shared, w)
			}
		}
		if len(shared) > len(best.Shared) {
			best.Shared, best.Item = shared, a.Title
		}
	}
	best.Matched = len(best.Shared) >= minShared
	return best
}

// titled counts the items that overlap an annotated topic (placed) and
// those of them whose title is a heading (not a list of key terms) that
// shares a keyword with the topic they overlap most (the first of a tie).
func titled(topics []qmsum.Topic, agenda []prdoc.AgendaItem, spoken []int) (placed, hits int) {
	for _, a := range agenda {
		from, to, ok := itemTurns(a, spoken)
		if !ok {
			continue
		}
		best, most := -1, 0
		for k, t := range topics {
			n := 0
			for _, s := range t.Spans {
				n += max(0, min(s.End, to)-max(s.Start, from)+1)
			}
			if n > most {
				best, most = k, n
			}
		}
		if best < 0 {
			continue
		}
		placed++
		if strings.Contains(a.Title, "·") {
			continue // a list of key terms is no heading
		}
		want := Keywords(topics[best].Topic)
		for _, w := range Keywords(a.Title) {
			if slices.Contains(want, w) {
				hits++
				break
			}
		}
	}
	return placed, hits
}

// itemTurns is the range of QMSum turn indices of the agenda item's
// turns (seqs of spoken turns); ok is false for an item past them.
func itemTurns(a prdoc.AgendaItem, spoken []int) (from, to int, ok bool) {
	if len(spoken) == 0 || a.StartSeq >= len(spoken) {
		return 0, 0, false
	}
	return spoken[a.StartSeq], spoken[min(a.EndSeq, len(spoken)-1)], true
}

// overlaps reports whether the agenda item's turns (seqs of spoken turns)
// meet one of the annotated spans (QMSum turn indices).
func overlaps(a prdoc.AgendaItem, spans []qmsum.Span, spoken []int) bool {
	from, to, ok := itemTurns(a, spoken)
	if !ok {
		return false
	}
	for _, s := range spans {
		if s.Start <= to && s.End >= from {
			return true
		}
	}
	return false
}

// Keywords returns the distinct content keywords of s: textutil terms with
// English plurals folded.
func Keywords(s string) []string {
	var out []string
	for _, t := range textutil.Terms(nil, s) {
		t = textutil.FoldPlural(t)
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// agendaMarkdown writes the pooled coverage of each agenda beside its
// items per meeting.
func (r Report) agendaMarkdown(w io.Writer) {
	type pooled struct{ items, matched, total, placed, titled int }
	var names []string
	sums := map[string]*pooled{}
	for _, m := range r.Meetings {
		for _, a := range m.AgendaRuns {
			p, ok := sums[a.Name]
			if !ok {
				p = &pooled{}
				sums[a.Name] = p
				names = append(names, a.Name)
			}
			p.items += a.Items
			p.matched += a.Matched
			p.total += len(m.Topics)
			p.placed += a.Placed
			p.titled += a.Titled
		}
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| agenda | items per meeting | annotated topics matched | titles naming their topic |\n|---|---:|---:|---:|\n")
	for _, name := range names {
		p := sums[name]
		fmt.Fprintf(w, "| %s | %.2f | %d/%d = %.3f | %d/%d = %.3f |\n", name, float64(p.items)/float64(len(r.Meetings)),
			p.matched, p.total, ratio(p.matched, p.total), p.titled, p.placed, ratio(p.titled, p.placed))
	}
}

// Markdown writes the report: per meeting, then pooled coverage.
func (r Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "| meeting | turns | agenda items | decisions | action items | open questions | annotated topics matched |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range r.Meetings {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d/%d |\n", m.Name, m.Turns, m.Agenda, m.Decisions, m.Actions, m.Questions, m.Matched(), len(m.Topics))
	}
	matched, total := r.Coverage()
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(matched) / float64(total)
	}
	fmt.Fprintf(w, "\nAgenda coverage: %d/%d annotated topics = %.1f%% (a topic matches when an agenda item overlapping its turns shares >= %d keyword(s) with it)\n",
		matched, total, pct, r.MinShared)
	r.agendaMarkdown(w)
	r.decisionsMarkdown(w)
	for _, m := range r.Meetings {
		for _, t := range m.Topics {
			mark := "miss"
			if t.Matched {
				mark = "hit "
			}
			fmt.Fprintf(w, "- %s %s: %q ← %q shared %v\n", mark, m.Name, t.Topic, t.Item, t.Shared)
		}
	}
}
