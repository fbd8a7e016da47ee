package transcript

import (
	"strings"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// FromTranscription builds the segment of one segment of a LiveKit
// transcription packet, spoken by the participant the packet names.
func FromTranscription(ts *lksdk.TranscriptionSegment, speaker Participant, now time.Time) Segment {
	return Segment{
		ID: ts.ID, SpeakerID: speaker.Identity, SpeakerName: speaker.Name, Text: strings.TrimSpace(ts.Text),
		Final: ts.Final, Confidence: 1, Language: ts.Language,
		Source: SourceTranscription, Received: now,
	}
}
