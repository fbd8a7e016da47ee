package store

import (
	"context"
	"fmt"
	"unicode/utf8"
)

// Presence event kinds.
const (
	PresenceJoined = "joined"
	PresenceLeft   = "left"
)

// MaxParticipantIDLen bounds a participant id, in bytes.
const MaxParticipantIDLen = 256

// PresenceEvent is a participant joining or leaving a meeting, AtMS after
// the meeting's start.
type PresenceEvent struct {
	ParticipantID string `json:"participant_id"`
	Kind          string `json:"event"`
	AtMS          int64  `json:"at_ms"`
}

// Validate checks an event's fields.
func (e PresenceEvent) Validate() error {
	switch {
	case e.ParticipantID == "" || len(e.ParticipantID) > MaxParticipantIDLen || !utf8.ValidString(e.ParticipantID):
		return fmt.Errorf("%w: participant_id must be 1 to %d bytes of UTF-8", ErrInvalid, MaxParticipantIDLen)
	case e.Kind != PresenceJoined && e.Kind != PresenceLeft:
		return fmt.Errorf("%w: event must be %q or %q, not %q", ErrInvalid, PresenceJoined, PresenceLeft, e.Kind)
	case e.AtMS < 0:
		return fmt.Errorf("%w: at_ms must not be negative", ErrInvalid)
	}
	return nil
}

// RecordPresence stores a presence event of the tenant's meeting; an event
// already stored is not stored again (created is false).
func (s *Store) RecordPresence(ctx context.Context, tenantID, meetingID string, e PresenceEvent) (created bool, err error) {
	if err := e.Validate(); err != nil {
		return false, err
	}
	if err := s.checkMeeting(ctx, tenantID, meetingID); err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO presence_events (tenant_id, meeting_id, participant_id, kind, at_ms)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, tenantID, meetingID, e.ParticipantID, e.Kind, e.AtMS)
	if err != nil {
		return false, fmt.Errorf("record presence in meeting %s: %w", meetingID, translate(err))
	}
	return tag.RowsAffected() == 1, nil
}

// LastLeft returns when the participant last left the meeting; ok is
// false when they never did.
func (s *Store) LastLeft(ctx context.Context, tenantID, meetingID, participantID string) (atMS int64, ok bool, err error) {
	var at *int64
	err = s.pool.QueryRow(ctx, `SELECT max(at_ms) FROM presence_events
		WHERE tenant_id = $1 AND meeting_id = $2 AND participant_id = $3 AND kind = 'left'`,
		tenantID, meetingID, participantID).Scan(&at)
	if err != nil {
		return 0, false, fmt.Errorf("read presence in meeting %s: %w", meetingID, translate(err))
	}
	if at == nil {
		return 0, false, nil
	}
	return *at, true, nil
}

// PresenceOf returns the participant's presence events in the meeting,
// in time order (joins before leaves at the same time).
func (s *Store) PresenceOf(ctx context.Context, tenantID, meetingID, participantID string) ([]PresenceEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT participant_id, kind, at_ms FROM presence_events
		WHERE tenant_id = $1 AND meeting_id = $2 AND participant_id = $3
		ORDER BY at_ms, kind`, tenantID, meetingID, participantID)
	if err != nil {
		return nil, fmt.Errorf("read presence in meeting %s: %w", meetingID, translate(err))
	}
	defer rows.Close()
	var out []PresenceEvent
	for rows.Next() {
		var e PresenceEvent
		if err := rows.Scan(&e.ParticipantID, &e.Kind, &e.AtMS); err != nil {
			return nil, fmt.Errorf("read presence in meeting %s: %w", meetingID, translate(err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read presence in meeting %s: %w", meetingID, translate(err))
	}
	return out, nil
}
