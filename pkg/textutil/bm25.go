package textutil

import "math"

// BM25 parameters (Okapi defaults).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25 is the Okapi BM25 weight of a term that occurs tf times in a
// document of docLen terms, when df of the n documents (of average length
// avgLen) contain it.
func BM25(tf, df, n int, docLen, avgLen float64) float64 {
	if tf <= 0 || df <= 0 {
		return 0
	}
	idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
	f := float64(tf)
	return idf * f * (BM25K1 + 1) / (f + BM25K1*(1-BM25B+BM25B*docLen/math.Max(avgLen, 1)))
}
