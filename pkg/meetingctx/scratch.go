package meetingctx

import "sync"

// scoreScratch holds the per-turn arrays of one turn scoring, kept in a
// pool between searches: an ask scores every turn of its meeting, and
// allocating a dozen arrays of the meeting's length each time made turn
// search one of the ask path's largest allocators.
type scoreScratch struct {
	lex, cos, lexCtx, cosCtx, lexWide, prior, named, prefix []float64
	lens                                                    []int
	tf                                                      []int32
	df                                                      []int
	reach                                                   []bool
	acc                                                     []float32 // PackedVecs.cosines
}

var scratchPool = sync.Pool{New: func() any { return new(scoreScratch) }}

// candPool holds RankTurns' candidate lists between searches.
var candPool = sync.Pool{New: func() any { return new([]rankedTurn) }}

// zeroed returns buf resized to n and cleared.
func zeroed[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
