package local

// NewSegmenterNoSummaries returns a Segmenter that leaves segments
// untitled, for fast parameter sweeps.
func NewSegmenterNoSummaries(cfg SegmenterConfig) *Segmenter {
	s := NewSegmenter(cfg)
	s.sum = nil
	return s
}

// HashTerm exposes the feature hash of a one-term feature.
func HashTerm(kind byte, term string) uint64 { return hashTerm(kind, term, "") }
