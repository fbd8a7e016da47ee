package transcript

import (
	"strings"
	"time"
)

// Sources a segment may come from; stored in transcripts.source.
const (
	SourceTextStream    = "livekit.text_stream"
	SourceTranscription = "livekit.transcription"
	SourceReplay        = "replay"
)

// Segment is one transcript segment heard in a room.
type Segment struct {
	// ID is the transcriber's segment id; re-sent segments keep it, which
	// makes ingest idempotent.
	ID          string
	SpeakerID   string
	SpeakerName string
	Text        string
	// Final is false for interim updates, which are never stored.
	Final bool
	// StartMS and EndMS are offsets from the meeting's start; zero when the
	// source gives none (the session fills them from the arrival time).
	StartMS    int64
	EndMS      int64
	Confidence float32
	Language   string
	Source     string
	// Received is when the worker got the segment.
	Received time.Time
}

// Text stream attributes of LiveKit Agents' transcriptions.
const (
	TopicTranscription   = "lk.transcription"
	AttrSegmentID        = "lk.segment_id"
	AttrFinal            = "lk.transcription_final"
	AttrTranscribedTrack = "lk.transcribed_track_id"
)

// Participant is who a segment is attributed to.
type Participant struct {
	Identity string
	Name     string
}

// TrackOwner finds the participant that published a track.
type TrackOwner func(trackSID string) (Participant, bool)

// FromTextStream builds the segment of one complete lk.transcription text
// stream. The speaker is the owner of the transcribed track when the
// stream names one and the room knows it, otherwise the stream's sender.
// A stream without lk.segment_id is identified by its stream id.
func FromTextStream(streamID string, attrs map[string]string, text string, sender Participant, owner TrackOwner, now time.Time) Segment {
	speaker := sender
	if track := attrs[AttrTranscribedTrack]; track != "" && owner != nil {
		if p, ok := owner(track); ok {
			speaker = p
		}
	}
	id := attrs[AttrSegmentID]
	if id == "" {
		id = streamID
	}
	return Segment{
		ID:          id,
		SpeakerID:   speaker.Identity,
		SpeakerName: speaker.Name,
		Text:        strings.TrimSpace(text),
		Final:       isTrue(attrs[AttrFinal]),
		Confidence:  1,
		Source:      SourceTextStream,
		Received:    now,
	}
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// SourceSTT prefixes the source of a segment the worker transcribed from a
// participant's audio itself: "stt.pocketsphinx", "stt.openai".
const SourceSTT = "stt."
