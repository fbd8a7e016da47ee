package segment

import (
	"context"
	"fmt"
	"math"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// DefaultDimension is the Embedder's dimension when none is configured.
const DefaultDimension = 256

// Embedder embeds texts by feature hashing: each feature (see the package
// documentation) is hashed with FNV-1a into one of dim buckets, added with
// a sign taken from another bit of the hash so that colliding features
// tend to cancel rather than pile up, and the vector is L2-normalised.
// Equal texts give equal vectors on every run and machine. It is safe for
// concurrent use.
type Embedder struct {
	dim int
}

var _ meetingctx.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder of dimension dim (DefaultDimension when
// dim <= 0). Any dimension works; 256 to 1024 keeps collisions rare for
// utterance- and summary-sized texts.
func NewEmbedder(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &Embedder{dim: dim}
}

// Dimension returns the vector length.
func (e *Embedder) Dimension() int { return e.dim }

// Embed returns one unit vector per text. A text without any letter or
// digit fails the whole call with ErrNoFeatures, naming its index; no
// zero vector is ever returned.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v, err := e.embed(text)
		if err != nil {
			return nil, fmt.Errorf("embed text %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func (e *Embedder) embed(text string) ([]float32, error) {
	words := tokenize(text)
	c := newCounter(words)
	countFeatures(c, words, true)
	if len(c) == 0 {
		return nil, ErrNoFeatures
	}
	acc := make([]float64, e.dim)
	for _, f := range c.bag() { // in hash order: the same sums on every run
		idx := (f.h & 0xffffffff) % uint64(e.dim)
		if f.h>>63 == 1 {
			acc[idx] -= f.v
		} else {
			acc[idx] += f.v
		}
	}
	norm := 0.0
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		// Every feature cancelled against another: practically
		// impossible, but a zero vector must never escape.
		return nil, ErrNoFeatures
	}
	inv := 1 / math.Sqrt(norm)
	v := make([]float32, e.dim)
	for i, x := range acc {
		v[i] = float32(x * inv)
	}
	return v, nil
}
