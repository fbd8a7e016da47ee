//go:build !cgo

package audio

import "errors"

// errNoCgo: this binary was built without cgo, hence without libopus.
var errNoCgo = errors.New("opus: built without cgo (libopus); rebuild with CGO_ENABLED=1 and libopus-dev installed")

// FrameSamples is the samples of one 20 ms frame at SampleRate.
const FrameSamples = SampleRate / 50

// Decoder is unavailable without cgo.
type Decoder struct{}

// NewDecoder fails without cgo.
func NewDecoder() (*Decoder, error) { return nil, errNoCgo }

// Decode fails without cgo.
func (*Decoder) Decode([]byte, int) ([]int16, error) { return nil, errNoCgo }

// Close does nothing.
func (*Decoder) Close() {}

// Encoder is unavailable without cgo.
type Encoder struct{}

// NewEncoder fails without cgo.
func NewEncoder(int) (*Encoder, error) { return nil, errNoCgo }

// Encode fails without cgo.
func (*Encoder) Encode([]int16) ([]byte, error) { return nil, errNoCgo }

// Close does nothing.
func (*Encoder) Close() {}
