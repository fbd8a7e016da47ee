package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tracing"
	"github.com/mithub/mithub/pkg/webhook"
)

// PRStore is what the pr:generate handler reads and writes.
type PRStore interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	StartPR(ctx context.Context, tenantID, id string) (meetingpr.PR, bool, error)
	CompletePR(ctx context.Context, tenantID, id string, c meetingpr.Content) (meetingpr.PR, error)
	FailPR(ctx context.Context, tenantID, id, msg string) (meetingpr.PR, error)
	CountTranscriptsUpTo(ctx context.Context, tenantID, meetingID string, lastID int64) (int, error)
	EachTranscript(ctx context.Context, tenantID, meetingID string, lastID int64, pageSize int, fn func(store.Transcript) error) error
}

// PRGenerateHandler builds PRs: it reads the meeting's transcripts up to
// the task's last_transcript_id page by page (an extractor that can stream
// never holds them all), takes the topic snapshot from the payload,
// extracts the document and upserts it into the PR row. A job first takes
// as many units of the handler's turn budget as its meeting has turns (at
// most the whole budget), so large jobs wait for each other instead of
// all running at once. A task
// delivered again (a retry, or a redelivery after a worker died) rebuilds
// the same PR; a PR already finished is left alone. Errors that a retry
// cannot fix are returned wrapping asynq.SkipRetry, after the PR is marked
// failed.
type PRGenerateHandler struct {
	store     PRStore
	extractor prdoc.Extractor
	turns     *TurnBudget
	log       *slog.Logger
	// Events, when set, gets pr.ready for every succeeded PR (again on a
	// redelivery: the event id makes that one event).
	Events Events
}

// NewPRGenerateHandler returns the pr:generate handler; turnsInFlight
// bounds the transcript turns of the jobs it runs at once (<= 0:
// DefaultTurnsInFlight).
func NewPRGenerateHandler(s PRStore, x prdoc.Extractor, turnsInFlight int, log *slog.Logger) *PRGenerateHandler {
	return &PRGenerateHandler{store: s, extractor: x, turns: NewTurnBudget(turnsInFlight), log: log}
}

// ProcessTask handles one pr:generate task.
func (h *PRGenerateHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := tasks.ParsePRGenerateTask(t.Payload())
	if err != nil {
		return errors.Join(err, asynq.SkipRetry)
	}
	pr, started, err := h.store.StartPR(ctx, p.GetTenantId(), p.GetPrId())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("PR %s: %w: %w", p.GetPrId(), err, asynq.SkipRetry)
	case err != nil:
		return fmt.Errorf("start PR %s: %w", p.GetPrId(), err)
	case !started:
		h.log.Info("PR already finished, nothing to do", "pr_id", pr.ID, "status", pr.Status)
		if pr.Status == meetingpr.Succeeded {
			// The attempt that built it may have died before telling.
			return h.ready(ctx, p.GetTenantId(), pr)
		}
		return nil
	}
	doc, err := h.build(ctx, p)
	if err != nil {
		return h.fail(ctx, p, err)
	}
	content, err := Content(doc)
	if err != nil {
		return h.fail(ctx, p, errors.Join(err, asynq.SkipRetry))
	}
	sctx, span := tracing.Start(ctx, "store PR")
	done, err := h.store.CompletePR(sctx, p.GetTenantId(), p.GetPrId(), content)
	span.End()
	switch {
	case errors.Is(err, store.ErrConflict):
		// Reviewed while this attempt ran: the review stands.
		h.log.Info("PR reviewed meanwhile, result dropped", "pr_id", p.GetPrId())
		return nil
	case err != nil:
		return fmt.Errorf("save PR %s: %w", p.GetPrId(), err)
	}
	h.writeResult(t, p, doc, content.Markdown)
	h.log.Info("PR generated", "pr_id", done.ID, "meeting_id", done.MeetingID, "attempt", done.Attempts,
		"agenda", len(doc.Agenda), "decisions", len(doc.Decisions), "action_items", len(doc.ActionItems))
	return h.ready(ctx, p.GetTenantId(), done)
}

// ready emits pr.ready; a failure fails the task, whose next delivery
// finds the PR finished and emits again.
func (h *PRGenerateHandler) ready(ctx context.Context, tenantID string, pr meetingpr.PR) error {
	return emit(ctx, h.Events, tenantID, webhook.PRReady, webhook.EventID(webhook.PRReady, pr.ID), webhook.PRDataOf(pr))
}

// build loads the input and extracts the document.
func (h *PRGenerateHandler) build(ctx context.Context, p *mithubv1.PRGenerateTask) (prdoc.Document, error) {
	m, err := h.store.GetMeeting(ctx, p.GetTenantId(), p.GetMeetingId())
	if errors.Is(err, store.ErrNotFound) {
		return prdoc.Document{}, fmt.Errorf("meeting %s: %w: %w", p.GetMeetingId(), err, asynq.SkipRetry)
	}
	if err != nil {
		return prdoc.Document{}, err
	}
	n, err := h.store.CountTranscriptsUpTo(ctx, p.GetTenantId(), p.GetMeetingId(), p.GetLastTranscriptId())
	if err != nil {
		return prdoc.Document{}, err
	}
	release, err := h.turns.Acquire(ctx, n, func(w int64) {
		h.log.Info("PR job waits for the turn budget", "pr_id", p.GetPrId(), "turns", n, "weight", w, "budget", h.turns.Size())
	})
	if err != nil {
		return prdoc.Document{}, err
	}
	defer release()
	src := TurnSource(h.store, p.GetTenantId(), p.GetMeetingId(), p.GetLastTranscriptId())
	var doc prdoc.Document
	if sx, ok := h.extractor.(prdoc.StreamExtractor); ok {
		doc, err = sx.ExtractStream(ctx, StreamInput(m, src, p.GetSnapshot()))
	} else {
		var in prdoc.Input
		if in, err = collect(ctx, m, src, p.GetSnapshot()); err == nil {
			doc, err = h.extractor.Extract(ctx, in)
		}
	}
	if errors.Is(err, llm.ErrPermanent) || errors.Is(err, prdoc.ErrBudget) {
		return prdoc.Document{}, errors.Join(err, asynq.SkipRetry)
	}
	return doc, err
}

// fail marks the PR failed when no attempt is left (or the error is
// permanent) and returns err for asynq.
func (h *PRGenerateHandler) fail(ctx context.Context, p *mithubv1.PRGenerateTask, err error) error {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	if errors.Is(err, asynq.SkipRetry) || retried >= maxRetry {
		// The PR row must say why, even if ctx is already done.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, ferr := h.store.FailPR(fctx, p.GetTenantId(), p.GetPrId(), err.Error()); ferr != nil {
			return errors.Join(err, fmt.Errorf("mark PR %s failed: %w", p.GetPrId(), ferr))
		}
	}
	return fmt.Errorf("build PR %s: %w", p.GetPrId(), err)
}

// writeResult stores the document as the task's result, for clients that
// read it from Redis; the PR row is the record, so a failure here is only
// logged.
func (h *PRGenerateHandler) writeResult(t *asynq.Task, p *mithubv1.PRGenerateTask, doc prdoc.Document, markdown string) {
	w := t.ResultWriter()
	if w == nil {
		return
	}
	b, err := proto.Marshal(Proto(p, doc, markdown))
	if err == nil {
		_, err = w.Write(b)
	}
	if err != nil {
		h.log.Warn("write PR task result", "pr_id", p.GetPrId(), "err", err)
	}
}

// Input builds the extractor's input from the meeting, its transcripts and
// the topic snapshot.
func Input(m store.Meeting, rows []store.Transcript, snap *mithubv1.TopicSnapshot) prdoc.Input {
	in := prdoc.Input{MeetingID: m.ID, MeetingTitle: m.Title, Date: m.StartedAt, Topics: topicsOf(snap)}
	for _, r := range rows {
		in.Turns = append(in.Turns, turnOf(r))
	}
	return in
}

// TranscriptPageSize is how many transcript rows a PR job reads at once.
const TranscriptPageSize = store.DefaultTranscriptPage

// TranscriptPager reads a meeting's transcripts page by page.
type TranscriptPager interface {
	EachTranscript(ctx context.Context, tenantID, meetingID string, lastID int64, pageSize int, fn func(store.Transcript) error) error
}

// TurnSource walks the meeting's transcripts with id <= lastID (0: all)
// as prdoc turns, TranscriptPageSize rows at a time.
func TurnSource(s TranscriptPager, tenantID, meetingID string, lastID int64) prdoc.Source {
	return func(ctx context.Context, fn func(prdoc.Turn) error) error {
		return s.EachTranscript(ctx, tenantID, meetingID, lastID, TranscriptPageSize, func(r store.Transcript) error {
			return fn(turnOf(r))
		})
	}
}

func turnOf(r store.Transcript) prdoc.Turn {
	speaker := r.SpeakerName
	if speaker == "" {
		speaker = r.SpeakerID
	}
	return prdoc.Turn{ID: r.ID, Seq: r.Seq, Speaker: speaker, Text: r.Text, StartMS: r.StartMS, EndMS: r.EndMS}
}

// StreamInput is the streamed extractor's input: the meeting, its turns
// and the topic snapshot.
func StreamInput(m store.Meeting, src prdoc.Source, snap *mithubv1.TopicSnapshot) prdoc.StreamInput {
	return prdoc.StreamInput{MeetingID: m.ID, MeetingTitle: m.Title, Date: m.StartedAt, Topics: topicsOf(snap), Turns: src}
}

// collect reads every turn into an Input, for extractors that cannot
// stream.
func collect(ctx context.Context, m store.Meeting, src prdoc.Source, snap *mithubv1.TopicSnapshot) (prdoc.Input, error) {
	in := prdoc.Input{MeetingID: m.ID, MeetingTitle: m.Title, Date: m.StartedAt, Topics: topicsOf(snap)}
	err := src(ctx, func(t prdoc.Turn) error {
		in.Turns = append(in.Turns, t)
		return nil
	})
	return in, err
}

func topicsOf(snap *mithubv1.TopicSnapshot) []prdoc.Topic {
	var out []prdoc.Topic
	for _, t := range snap.GetTopics() {
		out = append(out, prdoc.Topic{
			ID: t.GetId(), Title: t.GetTitle(), Summary: t.GetSummary(), Keywords: t.GetKeywords(),
			StartSeq: int(t.GetStartSeq()), EndSeq: int(t.GetEndSeq()),
		})
	}
	return out
}

// Content encodes a document for the PR row.
func Content(d prdoc.Document) (meetingpr.Content, error) {
	var (
		c   = meetingpr.Content{Title: d.Title, Markdown: prdoc.Markdown(d)}
		err error
	)
	enc := func(v any) json.RawMessage {
		if err != nil {
			return nil
		}
		var b []byte
		b, err = json.Marshal(v)
		return b
	}
	c.Agenda = enc(d.Agenda)
	c.Decisions = enc(d.Decisions)
	c.ActionItems = enc(d.ActionItems)
	c.OpenQuestions = enc(d.OpenQuestions)
	c.MemoryUpdates = enc(d.MemoryUpdates)
	if err != nil {
		return meetingpr.Content{}, fmt.Errorf("encode PR document: %w", err)
	}
	return c, nil
}

// Proto converts a document to its wire form.
func Proto(p *mithubv1.PRGenerateTask, d prdoc.Document, markdown string) *mithubv1.PRDocument {
	out := &mithubv1.PRDocument{
		PrId: p.GetPrId(), MeetingId: p.GetMeetingId(), Title: d.Title, Markdown: markdown,
		LastTranscriptId: p.GetLastTranscriptId(), GeneratedAtUnixMs: time.Now().UnixMilli(), Provider: d.Provider,
	}
	for _, a := range d.Agenda {
		out.Agenda = append(out.Agenda, &mithubv1.AgendaItem{Title: a.Title, Summary: a.Summary, Keywords: a.Keywords,
			StartSeq: int32(a.StartSeq), EndSeq: int32(a.EndSeq), TopicId: a.TopicID})
	}
	for _, x := range d.Decisions {
		out.Decisions = append(out.Decisions, &mithubv1.Decision{Text: x.Text, Speaker: x.Speaker, Seq: int32(x.Seq), Topic: x.Topic})
	}
	for _, x := range d.ActionItems {
		out.ActionItems = append(out.ActionItems, &mithubv1.ActionItem{Text: x.Text, Owner: x.Owner, Due: x.Due,
			DueDate: x.DueDate, Seq: int32(x.Seq), Topic: x.Topic})
	}
	for _, x := range d.OpenQuestions {
		out.OpenQuestions = append(out.OpenQuestions, &mithubv1.OpenQuestion{Text: x.Text, Asker: x.Asker, Seq: int32(x.Seq), Topic: x.Topic})
	}
	for _, u := range d.MemoryUpdates {
		out.MemoryUpdates = append(out.MemoryUpdates, &mithubv1.MemoryUpdate{Category: u.Category, Content: u.Content})
	}
	return out
}
