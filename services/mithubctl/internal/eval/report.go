package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// SegSummary is a segmentation method over the run: means over meetings,
// and the top-3 topic overlap over all queries.
type SegSummary struct {
	Method    string  `json:"method"`
	Topics    float64 `json:"topics_per_meeting"`
	Pk        float64 `json:"pk"`
	WD        float64 `json:"window_diff"`
	F1        float64 `json:"boundary_f1"`
	TopicTop3 float64 `json:"topic_top3_overlap"`
}

// RetSummary is a turn ranking over all queries of the run.
type RetSummary struct {
	Method string          `json:"method"`
	Recall map[int]float64 `json:"recall_at"`
	MRR    float64         `json:"mrr"`
}

// AnsSummary is an answer method over all queries of the run: mean
// ROUGE F1 (×100), the share of answers citing a turn in an annotated
// span, and the mean length in words.
type AnsSummary struct {
	Method     string  `json:"method"`
	R1         float64 `json:"rouge1_f1"`
	R2         float64 `json:"rouge2_f1"`
	RL         float64 `json:"rougeL_f1"`
	CitingSpan float64 `json:"citing_span"`
	Words      float64 `json:"words"`
}

// Overall are the run's figures.
type Overall struct {
	Meetings        int          `json:"meetings"`
	Queries         int          `json:"queries"`
	AnnotatedTopics float64      `json:"annotated_topics_per_meeting"`
	Segmentation    []SegSummary `json:"segmentation"`
	Retrieval       []RetSummary `json:"retrieval"`
	Answers         []AnsSummary `json:"answers"`
	// Providers counts MitHub's answers by the provider that wrote them
	// ("local", "openai"), so a report says which model it measured.
	Providers map[string]int `json:"answer_providers"`
}

var (
	segMethods = []string{Ours, One, Even, Win25, Win120}
	retMethods = []string{Ours, BM25, Random}
)

func (r Report) summarize() Overall {
	var o Overall
	for _, m := range r.Meetings {
		o.Meetings++
		o.Queries += m.Queries
		o.AnnotatedTopics += float64(m.RefTopics)
	}
	if o.Meetings == 0 {
		return o
	}
	o.AnnotatedTopics /= float64(o.Meetings)
	for _, name := range segMethods {
		s := SegSummary{Method: name}
		top3 := 0
		for _, m := range r.Meetings {
			x := m.Seg[name]
			s.Topics += float64(x.Topics)
			s.Pk += x.Pk
			s.WD += x.WD
			s.F1 += x.F1
			top3 += x.TopicTop3
		}
		nm := float64(o.Meetings)
		s.Topics, s.Pk, s.WD, s.F1 = s.Topics/nm, s.Pk/nm, s.WD/nm, s.F1/nm
		if o.Queries > 0 {
			s.TopicTop3 = float64(top3) / float64(o.Queries)
		}
		o.Segmentation = append(o.Segmentation, s)
	}
	for _, name := range retMethods {
		s := RetSummary{Method: name, Recall: map[int]float64{}}
		rr := 0.0
		found := map[int]int{}
		for _, m := range r.Meetings {
			x := m.Ret[name]
			rr += x.RRSum
			for k, v := range x.Found {
				found[k] += v
			}
		}
		if o.Queries > 0 {
			s.MRR = rr / float64(o.Queries)
			for _, k := range Cutoffs {
				s.Recall[k] = float64(found[k]) / float64(o.Queries)
			}
		}
		o.Retrieval = append(o.Retrieval, s)
	}
	for _, name := range ansMethods {
		var sum Ans
		for _, m := range r.Meetings {
			x := m.Ans[name]
			sum.N += x.N
			sum.R1, sum.R2, sum.RL = sum.R1+x.R1, sum.R2+x.R2, sum.RL+x.RL
			sum.Cited += x.Cited
			sum.Words += x.Words
		}
		s := AnsSummary{Method: name}
		if n := float64(sum.N); n > 0 {
			s.R1, s.R2, s.RL = 100*sum.R1/n, 100*sum.R2/n, 100*sum.RL/n
			s.CitingSpan, s.Words = float64(sum.Cited)/n, float64(sum.Words)/n
		}
		o.Answers = append(o.Answers, s)
	}
	o.Providers = map[string]int{}
	for _, m := range r.Meetings {
		for _, a := range m.Answers {
			o.Providers[a.Provider]++
		}
	}
	return o
}

// Markdown writes the per-meeting table of MitHub's figures (with the
// BM25 baseline's recall@10 beside) and the overall tables of every
// method.
func (r Report) Markdown(w io.Writer) {
	fmt.Fprintln(w, "| meeting | turns | annotated topics | topics | Pk | WindowDiff | boundary F1 | queries | recall@10 | BM25 recall@10 | MRR | topic top-3 overlap |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range r.Meetings {
		s, rt := m.Seg[Ours], m.Ret[Ours]
		mrr := 0.0
		if m.Queries > 0 {
			mrr = rt.RRSum / float64(m.Queries)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %d | %d | %d | %.3f | %d |\n", m.Name, m.Turns, m.RefTopics, s.Topics,
			s.Pk, s.WD, s.F1, m.Queries, rt.Found[10], m.Ret[BM25].Found[10], mrr, s.TopicTop3)
	}
	o := r.Overall
	fmt.Fprintf(w, "\n%d meetings, %d specific queries, %.1f annotated topics per meeting.\n\n", o.Meetings, o.Queries, o.AnnotatedTopics)
	fmt.Fprintln(w, "| segmentation | topics per meeting | Pk ↓ | WindowDiff ↓ | boundary F1 (±3) ↑ | topic top-3 overlaps span ↑ |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range o.Segmentation {
		fmt.Fprintf(w, "| %s | %.1f | %.3f | %.3f | %.3f | %.3f |\n", s.Method, s.Topics, s.Pk, s.WD, s.F1, s.TopicTop3)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| turn retrieval | recall@5 ↑ | recall@10 ↑ | recall@20 ↑ | MRR ↑ |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, s := range o.Retrieval {
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f |\n", s.Method, s.Recall[5], s.Recall[10], s.Recall[20], s.MRR)
	}
	fmt.Fprintln(w)
	if len(o.Providers) > 0 {
		names := slices.Sorted(maps.Keys(o.Providers))
		parts := make([]string, len(names))
		for i, p := range names {
			parts[i] = fmt.Sprintf("%s %d", p, o.Providers[p])
		}
		fmt.Fprintf(w, "MitHub's answers by provider: %s.\n\n", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, "| answers | ROUGE-1 F1 ↑ | ROUGE-2 F1 ↑ | ROUGE-L F1 ↑ | cites a turn in the span ↑ | words |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range o.Answers {
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.3f | %.1f |\n", s.Method, s.R1, s.R2, s.RL, s.CitingSpan, s.Words)
	}
}

// JSON writes the report as indented JSON.
func (r Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
