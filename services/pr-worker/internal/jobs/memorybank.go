package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/webhook"
)

// MemoryStore is what the memory:bank-update handler reads and writes.
type MemoryStore interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	ListTopics(ctx context.Context, tenantID, meetingID string) ([]store.TopicRow, error)
	EachTranscript(ctx context.Context, tenantID, meetingID string, lastID int64, pageSize int, fn func(store.Transcript) error) error
	PutProjectStatus(ctx context.Context, tenantID, project, meetingID, content string) error
	MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge membank.Merger) error
}

// MemoryBankHandler updates a project's memory bank after one of its
// meetings ended: it extracts the meeting's report from its transcripts
// and stored topics, writes the meeting's project_status first, then
// merges the other categories in parallel, each in its own transaction.
// Every merge replaces the meeting's own section, so a retry or a repeat
// leaves the bank as one run would. Each category keeps the newest
// meetings' sections within maxBytes (prdoc.MergeSection).
type MemoryBankHandler struct {
	store     MemoryStore
	extractor prdoc.Extractor
	maxBytes  int
	log       *slog.Logger
	now       func() time.Time
	// Events, when set, gets memory_bank.updated after each update.
	Events Events
}

// NewMemoryBankHandler returns the memory:bank-update handler; maxBytes
// bounds each category's meeting sections (0: no bound).
func NewMemoryBankHandler(s MemoryStore, x prdoc.Extractor, maxBytes int, log *slog.Logger) *MemoryBankHandler {
	return &MemoryBankHandler{store: s, extractor: x, maxBytes: maxBytes, log: log, now: time.Now}
}

// ProcessTask handles one memory:bank-update task.
func (h *MemoryBankHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := tasks.ParseMemoryBankUpdateTask(t.Payload())
	if err != nil {
		return errors.Join(err, asynq.SkipRetry)
	}
	if err := membank.ValidateProject(p.GetProject()); err != nil {
		return fmt.Errorf("%s: %w: %w", tasks.TypeMemoryBankUpdate, err, asynq.SkipRetry)
	}
	in, err := h.input(ctx, p)
	if err != nil {
		return err
	}
	var doc prdoc.Document
	if sx, ok := h.extractor.(prdoc.StreamExtractor); ok {
		doc, err = sx.ExtractStream(ctx, in)
	} else {
		var whole prdoc.Input
		if whole, err = collect(ctx, store.Meeting{ID: in.MeetingID, Title: in.MeetingTitle, StartedAt: in.Date}, in.Turns, nil); err == nil {
			whole.Topics = in.Topics
			doc, err = h.extractor.Extract(ctx, whole)
		}
	}
	if err != nil {
		return fmt.Errorf("extract meeting %s: %w", p.GetMeetingId(), err)
	}
	if err := h.store.PutProjectStatus(ctx, p.GetTenantId(), p.GetProject(), p.GetMeetingId(),
		prdoc.StatusMarkdown(prdoc.Input{MeetingID: in.MeetingID, MeetingTitle: in.MeetingTitle, Date: in.Date}, doc, h.now())); err != nil {
		return fmt.Errorf("project status of meeting %s: %w", p.GetMeetingId(), err)
	}
	errs := make([]error, len(doc.MemoryUpdates))
	var wg sync.WaitGroup
	for i, u := range doc.MemoryUpdates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.store.MergeMemory(ctx, p.GetTenantId(), p.GetProject(), []string{u.Category},
				func(cur map[string]string) (map[string]string, error) {
					return prdoc.Merge(cur, p.GetMeetingId(), []prdoc.MemoryUpdate{u}, h.maxBytes)
				})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("memory bank of project %s: %w", p.GetProject(), err)
	}
	h.log.Info("memory bank updated", "meeting_id", p.GetMeetingId(), "project", p.GetProject(),
		"categories", prdoc.Categories(doc.MemoryUpdates))
	return emit(ctx, h.Events, p.GetTenantId(), webhook.MemoryBankUpdated,
		webhook.EventID(webhook.MemoryBankUpdated, "meeting:"+p.GetMeetingId()), webhook.MemoryBankData{
			Project: p.GetProject(), MeetingID: p.GetMeetingId(), Cause: webhook.CauseMeetingEnded,
			Categories: prdoc.Categories(doc.MemoryUpdates), Path: "/v1/memory-bank/" + url.PathEscape(p.GetProject()),
		})
}

// input is the meeting, its stored topics and its transcripts, read page
// by page as the extractor walks them.
func (h *MemoryBankHandler) input(ctx context.Context, p *mithubv1.MemoryBankUpdateTask) (prdoc.StreamInput, error) {
	m, err := h.store.GetMeeting(ctx, p.GetTenantId(), p.GetMeetingId())
	if errors.Is(err, store.ErrNotFound) {
		return prdoc.StreamInput{}, fmt.Errorf("meeting %s: %w: %w", p.GetMeetingId(), err, asynq.SkipRetry)
	}
	if err != nil {
		return prdoc.StreamInput{}, err
	}
	topics, err := h.store.ListTopics(ctx, p.GetTenantId(), p.GetMeetingId())
	if err != nil {
		return prdoc.StreamInput{}, err
	}
	snap := &mithubv1.TopicSnapshot{}
	for _, t := range topics {
		snap.Topics = append(snap.Topics, &mithubv1.Topic{Id: t.ID, Seq: int32(t.Seq), Title: t.Title, Summary: t.Summary,
			Keywords: t.Keywords, StartSeq: int32(t.StartSeq), EndSeq: int32(t.EndSeq), StartMs: t.StartMS, EndMs: t.EndMS})
	}
	return StreamInput(m, TurnSource(h.store, p.GetTenantId(), p.GetMeetingId(), 0), snap), nil
}
