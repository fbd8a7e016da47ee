package segeval

import (
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
)

// unlabelled marks a turn no topic covers.
const unlabelled = -1

// ReferenceLabels labels each turn of a QMSum meeting with the index of the
// first topic (in topic_list order) whose spans contain it. A turn in no
// span takes the label of the nearest earlier labelled turn, or of the
// first labelled turn when none precedes it. A meeting without topics is
// one segment (all labels 0).
func ReferenceLabels(m *qmsum.Meeting) []int {
	labels := newUnlabelled(len(m.Turns))
	for ti, topic := range m.Topics {
		for _, s := range topic.Spans {
			assign(labels, s.Start, s.End, ti)
		}
	}
	return fill(labels)
}

// HypothesisLabels labels n turns from topics, each covering the seqs
// [StartSeq, EndSeq] with seq = turn index. A turn takes the index of the
// first topic that covers it; uncovered turns are filled like in
// ReferenceLabels. Ranges are clipped to [0, n).
func HypothesisLabels(n int, topics []meetingctx.Topic) []int {
	labels := newUnlabelled(n)
	for ti, t := range topics {
		assign(labels, t.StartSeq, t.EndSeq, ti)
	}
	return fill(labels)
}

func newUnlabelled(n int) []int {
	labels := make([]int, n)
	for i := range labels {
		labels[i] = unlabelled
	}
	return labels
}

// assign gives label to the still unlabelled turns in [from, to].
func assign(labels []int, from, to, label int) {
	for i := max(from, 0); i <= to && i < len(labels); i++ {
		if labels[i] == unlabelled {
			labels[i] = label
		}
	}
}

// fill replaces unlabelled turns by the nearest earlier label, or the first
// label at the start; with no label at all every turn gets 0.
func fill(labels []int) []int {
	first := unlabelled
	for _, l := range labels {
		if l != unlabelled {
			first = l
			break
		}
	}
	if first == unlabelled {
		first = 0
	}
	prev := first
	for i, l := range labels {
		if l == unlabelled {
			labels[i] = prev
			continue
		}
		prev = l
	}
	return labels
}
