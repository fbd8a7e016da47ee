// Package segeval scores a topic segmentation against a reference with the
// two standard window metrics, Pk (Beeferman, Berger and Lafferty, 1999)
// and WindowDiff (Pevzner and Hearst, 2002).
//
// A segmentation of n turns is given as per-turn labels: turns i and i+1
// are in the same segment when their labels are equal, and a boundary lies
// between them otherwise. Labels need not be contiguous or ordered; a label
// that reappears later opens a new segment. ReferenceLabels builds labels
// from a QMSum meeting's annotated topic spans and HypothesisLabels from
// the engine's topics.
//
// Both metrics slide a probe of width k over the turns and count the probes
// where reference and hypothesis disagree, so lower is better: 0 is a
// perfect segmentation, and values lie in [0, 1].
package segeval
