package tokens

// bpeCount returns how many tokens byte-pair encoding turns piece into,
// merging the adjacent pair with the lowest rank first, as tiktoken does.
func bpeCount(ranks map[string]int, piece string) int {
	if _, ok := ranks[piece]; ok {
		return 1
	}
	// bounds[k] is where part k starts; the last entry is len(piece).
	var buf [64]int
	bounds := buf[:0]
	for k := 0; k <= len(piece); k++ {
		bounds = append(bounds, k)
	}
	for len(bounds) > 2 {
		best, bestRank := -1, int(^uint(0)>>1)
		for k := 0; k+2 < len(bounds); k++ {
			if r, ok := ranks[piece[bounds[k]:bounds[k+2]]]; ok && r < bestRank {
				best, bestRank = k, r
			}
		}
		if best < 0 {
			break
		}
		bounds = append(bounds[:best+1], bounds[best+2:]...)
	}
	return len(bounds) - 1
}
