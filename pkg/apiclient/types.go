package apiclient

import "time"

// Meeting statuses.
const (
	StatusActive = "active"
	StatusEnded  = "ended"
)

// MaxUtterancesPerRequest is the most utterances the API accepts in one
// PostUtterances request.
const MaxUtterancesPerRequest = 500

// CreateMeetingRequest is the body of POST /v1/meetings.
type CreateMeetingRequest struct {
	Title    string `json:"title"`
	RoomName string `json:"room_name"`
	Language string `json:"language"`
	// StartedAt is when the meeting started (zero: now), for a recorded
	// meeting replayed live.
	StartedAt time.Time `json:"started_at,omitzero"`
}

// Meeting is a meeting as returned by the meeting routes.
type Meeting struct {
	ID        string         `json:"id"`
	RoomName  string         `json:"room_name"`
	Title     string         `json:"title"`
	Language  string         `json:"language"`
	Status    string         `json:"status"`
	StartedAt time.Time      `json:"started_at"`
	EndedAt   *time.Time     `json:"ended_at"`
	Metadata  map[string]any `json:"metadata"`
	Counters  Counters       `json:"counters"`
}

// Counters are a meeting's running totals.
type Counters struct {
	Utterances int64 `json:"utterances"`
	Tokens     int64 `json:"tokens"`
	LastSeq    int64 `json:"last_seq"`
}

// Utterance is one final transcript segment sent to PostUtterances.
// SegmentID makes ingest idempotent within a meeting.
type Utterance struct {
	SegmentID   string  `json:"segment_id"`
	SpeakerID   string  `json:"speaker_id"`
	SpeakerName string  `json:"speaker_name"`
	Text        string  `json:"text"`
	StartMS     int64   `json:"start_ms"`
	EndMS       int64   `json:"end_ms"`
	Confidence  float64 `json:"confidence"`
}

// IngestResult is the response of PostUtterances. Cursor is the highest seq
// applied to the meeting context, -1 when the context is empty.
type IngestResult struct {
	Inserted   int   `json:"inserted"`
	Duplicates int   `json:"duplicates"`
	Cursor     int64 `json:"cursor"`
}

// SyncResult is the response of Sync.
type SyncResult struct {
	Applied int   `json:"applied"`
	Cursor  int64 `json:"cursor"`
}

// Context is the response of GET /v1/meetings/{id}/context. Fields the server
// adds beyond these are ignored; ContextRaw returns the whole document.
type Context struct {
	MeetingID string    `json:"meeting_id"`
	Cursor    int64     `json:"cursor"`
	L0        L0Context `json:"l0"`
	L1        L1Context `json:"l1"`
	Pending   L0Context `json:"pending"`
	Speakers  []Speaker `json:"speakers"`
	Counters  Counters  `json:"counters"`
}

// L1Context is the topics layer of a meeting context.
type L1Context struct {
	// Cursor is the highest seq covered by a topic, -1 before the first.
	Cursor int64   `json:"cursor"`
	Busy   bool    `json:"busy"`
	Waited *bool   `json:"waited,omitempty"`
	Topics []Topic `json:"topics"`
}

// Speaker is a participant's statistics and inferred role.
type Speaker struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Turns     int    `json:"turns"`
	Words     int    `json:"words"`
	TalkMS    int64  `json:"talk_ms"`
	Questions int    `json:"questions"`
	Decisions int    `json:"decisions"`
	Role      string `json:"role"`
}

// L0Context is the recent-turns layer of a meeting context.
type L0Context struct {
	Turns  []Turn `json:"turns"`
	Tokens int64  `json:"tokens"`
}

// Turn is one stored utterance inside the context.
type Turn struct {
	Seq         int64   `json:"seq"`
	SegmentID   string  `json:"segment_id"`
	SpeakerID   string  `json:"speaker_id"`
	SpeakerName string  `json:"speaker_name"`
	Text        string  `json:"text"`
	StartMS     int64   `json:"start_ms"`
	EndMS       int64   `json:"end_ms"`
	Confidence  float64 `json:"confidence"`
	Tokens      int64   `json:"tokens"`
}

// ingestRequest is the body of POST /v1/meetings/{id}/utterances.
type ingestRequest struct {
	Utterances []Utterance `json:"utterances"`
}
