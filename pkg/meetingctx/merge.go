package meetingctx

import (
	"math"
	"strings"
)

// mergeOverCap merges neighbouring topics while there are more than
// MaxTopics. Only neighbours in time merge, so topics keep tiling the
// meeting. The pair merged first is the most similar one at or above
// MergeThreshold (cosine of embeddings); when no pair reaches it, the most
// similar pair by cosine plus keyword overlap merges, so the cap holds.
func (m *Manager) mergeOverCap() {
	for {
		m.mu.Lock()
		if len(m.topics) <= m.cfg.MaxTopics {
			m.mu.Unlock()
			return
		}
		i := bestMergePair(m.topics, m.cfg.MergeThreshold)
		a, b := m.topics[i], m.topics[i+1]
		m.mu.Unlock()

		fb := Summary{
			Title:    a.Title,
			Summary:  clip(strings.TrimSuffix(a.Summary, ".")+"; "+b.Summary, 120),
			Keywords: unionKeywords(a.Keywords, b.Keywords, 8),
		}
		sum := m.summarize(nil, []Topic{a, b}, fb)

		m.mu.Lock()
		if i+1 >= len(m.topics) || m.topics[i].ID != a.ID || m.topics[i+1].ID != b.ID {
			m.mu.Unlock()
			continue
		}
		merged := a
		merged.Title, merged.Summary, merged.Keywords = sum.Title, clip(sum.Summary, 120), sum.Keywords
		merged.EndSeq = b.EndSeq
		merged.StartMS, merged.EndMS = min(merged.StartMS, b.StartMS), max(merged.EndMS, b.EndMS)
		merged.MergedFrom = append(append(append([]string(nil), a.MergedFrom...), b.ID), b.MergedFrom...)
		merged.Version = max(a.Version, b.Version) + 1
		merged.Embedding = nil
		m.topics[i] = merged
		m.lex[i] = m.lex[i].merge(m.lex[i+1])
		m.topics = append(m.topics[:i+1], m.topics[i+2:]...)
		m.lex = append(m.lex[:i+1], m.lex[i+2:]...)
		for k := i + 1; k < len(m.topics); k++ {
			m.topics[k].Seq = k
		}
		m.dirty = true
		m.mu.Unlock()
	}
}

// bestMergePair returns i such that topics i and i+1 should merge.
func bestMergePair(ts []Topic, threshold float64) int {
	best, bestScore := -1, math.Inf(-1)
	fallback, fallbackScore := 0, math.Inf(-1)
	for i := 0; i+1 < len(ts); i++ {
		cos, ok := cosine(ts[i].Embedding, ts[i+1].Embedding)
		jac := jaccard(ts[i].Keywords, ts[i+1].Keywords)
		if ok && cos >= threshold && cos > bestScore {
			best, bestScore = i, cos
		}
		score := jac
		if ok {
			score += cos
		}
		// Short topics merge first among equals.
		score -= 1e-6 * float64(ts[i].EndSeq-ts[i].StartSeq+ts[i+1].EndSeq-ts[i+1].StartSeq)
		if score > fallbackScore {
			fallback, fallbackScore = i, score
		}
	}
	if best >= 0 {
		return best
	}
	return fallback
}

func cosine(a, b []float32) (float64, bool) {
	if len(a) == 0 || len(a) != len(b) {
		return 0, false
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, k := range a {
		set[strings.ToLower(k)] = true
	}
	inter := 0
	union := len(set)
	for _, k := range b {
		if set[strings.ToLower(k)] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

func unionKeywords(a, b []string, n int) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range append(append([]string(nil), a...), b...) {
		if l := strings.ToLower(k); !seen[l] && len(out) < n {
			seen[l] = true
			out = append(out, k)
		}
	}
	return out
}
