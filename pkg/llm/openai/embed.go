package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/mithub/mithub/pkg/llm"
)

// MaxEmbedBatch is the most inputs one embeddings request carries.
const MaxEmbedBatch = 64

// Dimension returns the configured embedding dimension.
func (c *Client) Dimension() int { return c.cfg.Dimension }

// Embed returns one vector per text, in order (POST {BaseURL}/embeddings,
// at most MaxEmbedBatch inputs per request). Every vector is checked
// against Config.Dimension; a vector of the wrong length, a zero vector or
// a missing one fails the call with llm.ErrBadResponse, so no bad vector is
// ever returned. An empty list returns nil without a request.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	switch {
	case c.cfg.EmbedModel == "":
		return nil, fmt.Errorf("openai embed: %w: no embedding model configured", llm.ErrPermanent)
	case c.cfg.Dimension <= 0:
		return nil, fmt.Errorf("openai embed: %w: no embedding dimension configured", llm.ErrPermanent)
	}
	for i, t := range texts {
		if t == "" {
			return nil, fmt.Errorf("openai embed: %w: input %d is empty", llm.ErrPermanent, i)
		}
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += MaxEmbedBatch {
		end := min(start+MaxEmbedBatch, len(texts))
		vecs, err := c.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("openai embed %s inputs %d-%d: %w", c.cfg.EmbedModel, start, end-1, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embedRequest{Model: c.cfg.EmbedModel, Input: batch, EncodingFormat: "float"})
	if err != nil {
		return nil, fmt.Errorf("%w: encode request: %w", llm.ErrPermanent, err)
	}
	var vecs [][]float32
	err = c.retry(ctx, func(ctx context.Context) error {
		var wire embedResponse
		if err := c.postJSON(ctx, "/embeddings", body, &wire); err != nil {
			return err
		}
		v, err := c.vectors(&wire, len(batch))
		if err != nil {
			return err
		}
		vecs = v
		return nil
	})
	return vecs, err
}

// vectors orders the response's embeddings by index and checks each.
func (c *Client) vectors(r *embedResponse, n int) ([][]float32, error) {
	if len(r.Data) != n {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", llm.ErrBadResponse, len(r.Data), n)
	}
	out := make([][]float32, n)
	for pos, d := range r.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, fmt.Errorf("%w: embedding index %d out of range or repeated", llm.ErrBadResponse, i)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("%w: embedding %d: %w", llm.ErrBadResponse, i, err)
		}
		if err := checkVector(v, c.cfg.Dimension); err != nil {
			return nil, fmt.Errorf("%w: embedding %d: %w", llm.ErrBadResponse, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// decodeVector reads an embedding given as a JSON array of numbers or as
// base64 of little-endian float32s.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	var v []float32
	if err := json.Unmarshal(raw, &v); err == nil {
		return v, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("want an array of numbers or base64")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil, fmt.Errorf("invalid base64 vector")
	}
	v = make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("dimension %d, want %d", len(v), dim)
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("not a finite vector")
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return fmt.Errorf("zero vector")
	}
	return nil
}
