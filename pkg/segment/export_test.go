package segment

import (
	"sync"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// NewSegmenterNoSummaries returns a Segmenter that leaves segments
// untitled, for fast parameter sweeps.
// Turn analyses are memoised in cache, which sweeps share across
// configurations.
func NewSegmenterNoSummaries(cfg SegmenterConfig, cache *sync.Map) *Segmenter {
	s := NewSegmenter(cfg)
	s.sum = nil
	s.analyse = func(text string) analysis {
		if a, ok := cache.Load(text); ok {
			return a.(analysis)
		}
		a := analyse(text)
		cache.Store(text, a)
		return a
	}
	return s
}

// HashTerm exposes the feature hash of a one-term feature.
func HashTerm(kind byte, term string) uint64 { return hashTerm(kind, term, "") }

// MeetingWords is how many words the whole-meeting decoder counts in
// turns.
func MeetingWords(turns []meetingctx.Turn) int {
	infos := (&Segmenter{analyse: analyse}).newWindow(nil, turns).infos()
	return wordStarts(infos)[len(infos)]
}
