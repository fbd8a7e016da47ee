package prs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/webhook"
)

// Approve merges the PR's memory updates into the project's memory bank
// (each meeting keeps one section per category; decisions form a ledger
// with their meeting and date), records the project status as of the
// meeting and marks the PR approved, in one transaction. Only a succeeded
// PR can be approved (ErrConflict); approving an approved PR changes
// nothing.
func (s *Service) Approve(ctx context.Context, tenantID, id string) (meetingpr.PR, error) {
	if err := s.configured(); err != nil {
		return meetingpr.PR{}, err
	}
	pr, err := s.PRs.GetPR(ctx, tenantID, id)
	if err != nil {
		return meetingpr.PR{}, prErr(err)
	}
	var updates []prdoc.MemoryUpdate
	if err := json.Unmarshal(pr.MemoryUpdates, &updates); err != nil {
		return meetingpr.PR{}, fmt.Errorf("decode memory updates of PR %s: %w", id, err)
	}
	merge := func(cur map[string]string) (map[string]string, error) {
		return prdoc.Merge(cur, pr.MeetingID, updates, s.MemoryBankMaxBytes)
	}
	approved, err := s.PRs.ApprovePR(ctx, tenantID, id, prdoc.Categories(updates), merge, statusOf)
	if errors.Is(err, store.ErrConflict) {
		return meetingpr.PR{}, conflictf("PR is %s; only a succeeded PR can be approved", approved.Status)
	}
	if err != nil {
		return meetingpr.PR{}, prErr(err)
	}
	if s.Events != nil {
		s.Events.EmitLogged(ctx, tenantID, webhook.PRApproved, webhook.EventID(webhook.PRApproved, approved.ID), webhook.PRDataOf(approved))
		if cats := prdoc.Categories(updates); len(cats) > 0 {
			s.Events.EmitLogged(ctx, tenantID, webhook.MemoryBankUpdated, webhook.EventID(webhook.MemoryBankUpdated, "pr:"+approved.ID),
				webhook.MemoryBankData{Project: approved.Project, MeetingID: approved.MeetingID, PRID: approved.ID,
					Cause: webhook.CausePRApproved, Categories: cats, Path: "/v1/memory-bank/" + url.PathEscape(approved.Project)})
		}
	}
	return approved, nil
}

// statusOf is the project status recorded when a PR is approved.
func statusOf(pr meetingpr.PR) string {
	var d prdoc.Document
	_ = json.Unmarshal(pr.Agenda, &d.Agenda)
	_ = json.Unmarshal(pr.Decisions, &d.Decisions)
	_ = json.Unmarshal(pr.ActionItems, &d.ActionItems)
	_ = json.Unmarshal(pr.OpenQuestions, &d.OpenQuestions)
	in := prdoc.Input{MeetingID: pr.MeetingID, MeetingTitle: pr.Title}
	return prdoc.StatusMarkdown(in, d, time.Now())
}

// Reject marks a succeeded or failed PR rejected (else ErrConflict);
// nothing is merged.
func (s *Service) Reject(ctx context.Context, tenantID, id string) (meetingpr.PR, error) {
	if err := s.configured(); err != nil {
		return meetingpr.PR{}, err
	}
	pr, err := s.PRs.RejectPR(ctx, tenantID, id)
	if errors.Is(err, store.ErrConflict) {
		return meetingpr.PR{}, conflictf("PR is %s; only a succeeded or failed PR can be rejected", pr.Status)
	}
	if err != nil {
		return meetingpr.PR{}, prErr(err)
	}
	if s.Events != nil {
		s.Events.EmitLogged(ctx, tenantID, webhook.PRRejected, webhook.EventID(webhook.PRRejected, pr.ID), webhook.PRDataOf(pr))
	}
	return pr, nil
}
