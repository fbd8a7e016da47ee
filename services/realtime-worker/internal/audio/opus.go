//go:build cgo

package audio

/*
#cgo pkg-config: opus
#include <opus.h>
#include <stdlib.h>

static int mh_set_bitrate(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(v)); }
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// maxFrame is the most samples one Opus packet decodes to at 16 kHz
// (120 ms).
const maxFrame = SampleRate * 120 / 1000

// Decoder decodes one Opus stream to 16 kHz mono PCM. It is not safe for
// concurrent use.
type Decoder struct {
	dec *C.OpusDecoder
	buf []int16
}

// NewDecoder returns a decoder; Close frees it.
func NewDecoder() (*Decoder, error) {
	var errc C.int
	d := C.opus_decoder_create(C.opus_int32(SampleRate), 1, &errc)
	if errc != C.OPUS_OK || d == nil {
		return nil, fmt.Errorf("opus decoder: %s", C.GoString(C.opus_strerror(errc)))
	}
	return &Decoder{dec: d, buf: make([]int16, maxFrame)}, nil
}

// Decode decodes one packet and returns its samples, valid until the next
// call. A nil packet conceals one lost packet of samples samples.
func (d *Decoder) Decode(packet []byte, samples int) ([]int16, error) {
	if d.dec == nil {
		return nil, errors.New("opus decoder closed")
	}
	frame := maxFrame
	var data *C.uchar
	if len(packet) > 0 {
		data = (*C.uchar)(unsafe.Pointer(&packet[0]))
	} else {
		frame = min(max(samples, SampleRate/400), maxFrame)
		frame -= frame % (SampleRate / 400) // a multiple of 2.5 ms
	}
	n := C.opus_decode(d.dec, data, C.opus_int32(len(packet)), (*C.opus_int16)(unsafe.Pointer(&d.buf[0])), C.int(frame), 0)
	if n < 0 {
		return nil, fmt.Errorf("opus decode: %s", C.GoString(C.opus_strerror(n)))
	}
	return d.buf[:int(n)], nil
}

// Close frees the decoder.
func (d *Decoder) Close() {
	if d.dec != nil {
		C.opus_decoder_destroy(d.dec)
		d.dec = nil
	}
}

// Encoder encodes 16 kHz mono PCM to Opus in 20 ms frames; the tests and
// the benchmark publish microphone tracks with it.
type Encoder struct {
	enc *C.OpusEncoder
	out []byte
}

// FrameSamples is the samples of one 20 ms frame at SampleRate.
const FrameSamples = SampleRate / 50

// NewEncoder returns a VoIP encoder at bitrate bits per second (0: the
// codec's default); Close frees it.
func NewEncoder(bitrate int) (*Encoder, error) {
	var errc C.int
	e := C.opus_encoder_create(C.opus_int32(SampleRate), 1, C.OPUS_APPLICATION_VOIP, &errc)
	if errc != C.OPUS_OK || e == nil {
		return nil, fmt.Errorf("opus encoder: %s", C.GoString(C.opus_strerror(errc)))
	}
	if bitrate > 0 {
		if rc := C.mh_set_bitrate(e, C.opus_int32(bitrate)); rc != C.OPUS_OK {
			C.opus_encoder_destroy(e)
			return nil, fmt.Errorf("opus bitrate: %s", C.GoString(C.opus_strerror(rc)))
		}
	}
	return &Encoder{enc: e, out: make([]byte, 4000)}, nil
}

// Encode encodes one frame of FrameSamples samples; the packet is a copy.
func (e *Encoder) Encode(frame []int16) ([]byte, error) {
	if len(frame) != FrameSamples {
		return nil, fmt.Errorf("opus encode: frame of %d samples, want %d", len(frame), FrameSamples)
	}
	n := C.opus_encode(e.enc, (*C.opus_int16)(unsafe.Pointer(&frame[0])), C.int(len(frame)),
		(*C.uchar)(unsafe.Pointer(&e.out[0])), C.opus_int32(len(e.out)))
	if n < 0 {
		return nil, fmt.Errorf("opus encode: %s", C.GoString(C.opus_strerror(n)))
	}
	return append([]byte(nil), e.out[:int(n)]...), nil
}

// Close frees the encoder.
func (e *Encoder) Close() {
	if e.enc != nil {
		C.opus_encoder_destroy(e.enc)
		e.enc = nil
	}
}
