package meetingcache

import (
	"context"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// TopicRows is the store's topic persistence.
type TopicRows interface {
	ListTopics(ctx context.Context, tenantID, meetingID string) ([]store.TopicRow, error)
	SaveL1(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []store.TopicRow) error
	SaveL1EndPass(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []store.TopicRow) error
}

// TopicStore adapts the store to the engine's meetingctx.TopicStore.
type TopicStore struct{ Rows TopicRows }

// SaveTopics implements meetingctx.TopicStore.
func (s TopicStore) SaveTopics(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []meetingctx.Topic) error {
	ctx, span := saveSpan(ctx, meetingID, l1Cursor, len(topics))
	defer span.End()
	return s.Rows.SaveL1(ctx, tenantID, meetingID, l1Cursor, topicRows(meetingID, topics))
}

// SaveEndPass implements meetingctx.EndPassStore.
func (s TopicStore) SaveEndPass(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []meetingctx.Topic) error {
	ctx, span := saveSpan(ctx, meetingID, l1Cursor, len(topics))
	defer span.End()
	return s.Rows.SaveL1EndPass(ctx, tenantID, meetingID, l1Cursor, topicRows(meetingID, topics))
}

func topicRows(meetingID string, topics []meetingctx.Topic) []store.TopicRow {
	rows := make([]store.TopicRow, len(topics))
	for i, t := range topics {
		rows[i] = store.TopicRow{
			ID: t.ID, MeetingID: meetingID, Seq: t.Seq, Title: t.Title, Summary: t.Summary, Keywords: t.Keywords,
			StartSeq: t.StartSeq, EndSeq: t.EndSeq, StartMS: t.StartMS, EndMS: t.EndMS, Embedding: t.Embedding,
			MergedFrom: t.MergedFrom, Version: t.Version,
		}
	}
	return rows
}

// Topics converts stored rows to context topics.
func Topics(rows []store.TopicRow) []meetingctx.Topic {
	out := make([]meetingctx.Topic, len(rows))
	for i, r := range rows {
		out[i] = meetingctx.Topic{
			ID: r.ID, Seq: r.Seq, Title: r.Title, Summary: r.Summary, Keywords: r.Keywords,
			StartSeq: r.StartSeq, EndSeq: r.EndSeq, StartMS: r.StartMS, EndMS: r.EndMS, Embedding: r.Embedding,
			MergedFrom: r.MergedFrom, Version: r.Version,
		}
	}
	return out
}
