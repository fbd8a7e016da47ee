package answer

import (
	"strconv"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// LowConfidence is the transcription confidence under which a cited turn
// earns a warning.
const LowConfidence = 0.6

// Citation points at one transcript turn an answer relies on.
type Citation struct {
	// N is the citation's number, as written in the answer: [N].
	N            int     `json:"n"`
	Seq          int     `json:"seq"`
	TranscriptID int64   `json:"transcript_id,omitempty"`
	SpeakerID    string  `json:"speaker_id"`
	SpeakerName  string  `json:"speaker_name"`
	StartMS      int64   `json:"start_ms"`
	Time         string  `json:"time"`
	Text         string  `json:"text"`
	Confidence   float32 `json:"confidence"`
	LowConf      bool    `json:"low_confidence"`
}

// CitationOf returns the citation of turn t numbered n.
func CitationOf(n int, t meetingctx.Turn) Citation {
	return Citation{
		N: n, Seq: t.Seq, SpeakerID: t.SpeakerID, SpeakerName: t.SpeakerName, StartMS: t.StartMS,
		Time: Clock(t.StartMS), Text: t.Text, Confidence: t.Confidence, LowConf: t.Confidence < LowConfidence,
	}
}

// Clock formats a meeting-relative time as mm:ss (minutes may pass 59).
func Clock(ms int64) string {
	var b [16]byte
	return string(appendClock(b[:0], ms))
}

func appendClock(dst []byte, ms int64) []byte {
	if ms < 0 {
		ms = 0
	}
	s := ms / 1000
	m, sec := s/60, s%60
	if m < 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, m, 10)
	return append(dst, ':', byte('0'+sec/10), byte('0'+sec%10))
}

// Exchange is a previous question and answer of the same thread.
type Exchange struct {
	Question string `json:"question"`
	// Query is what the question was searched as, after follow-up
	// resolution.
	Query  string `json:"query"`
	Answer string `json:"answer"`
	// Cited are the seqs of the turns the answer cited.
	Cited []int `json:"cited"`
}

// Plan is the planning step's verdict on a question.
type Plan struct {
	Plan       string `json:"plan"`
	NeedSearch bool   `json:"need_search"`
	CanAnswer  bool   `json:"can_answer"`
	// NextSubquery is the query to search topics with: the question, with
	// a follow-up's missing subject filled in from the previous exchange.
	NextSubquery        string   `json:"next_subquery"`
	MissingRequirements []string `json:"missing_requirements"`
}
