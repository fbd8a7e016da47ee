// Package headingtrain learns the agenda's heading-word weights
// (prdoc.HeadingWords) from QMSum: each annotated topic of a meeting is an
// example, its name (`topic_list`) the heading people gave the turns of
// its relevant spans.
package headingtrain

import (
	"context"
	"fmt"
	"io"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/decisiontrain"
)

// Learning settings, fixed so that runs are reproducible.
const (
	// MinTF is how often a term must occur in a topic's turns to count
	// as a heading candidate there (the headline rule's smaller minimum).
	MinTF = 2
	// Alpha pseudo-topics pull a term's share towards the average.
	Alpha = 10
	// MinSeen topics a term must be a candidate in to get a weight.
	MinSeen = 5
)

// Load reads every meeting of dir and returns its topics as examples.
func Load(ctx context.Context, dir string, progress io.Writer) ([]prdoc.HeadingExample, error) {
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []prdoc.HeadingExample
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, err
		}
		out = append(out, Examples(m)...)
	}
	if progress != nil {
		fmt.Fprintf(progress, "%d meetings, %d annotated topics\n", len(files), len(out))
	}
	return out, nil
}

// Examples are a meeting's annotated topics with the spoken turns of
// their spans.
func Examples(m *qmsum.Meeting) []prdoc.HeadingExample {
	turns := decisiontrain.Turns(m)
	spoken := qmsum.SpokenTurns(m)
	var out []prdoc.HeadingExample
	for _, t := range m.Topics {
		ex := prdoc.HeadingExample{Name: t.Topic}
		for k, tr := range turns {
			for _, s := range t.Spans {
				if s.Contains(spoken[k]) {
					ex.Turns = append(ex.Turns, tr)
					break
				}
			}
		}
		if len(ex.Turns) > 0 {
			out = append(out, ex)
		}
	}
	return out
}

// Train learns the weights of the examples.
func Train(examples []prdoc.HeadingExample, source string) prdoc.HeadingWords {
	return prdoc.LearnHeadingWords(examples, MinTF, Alpha, MinSeen, source)
}
