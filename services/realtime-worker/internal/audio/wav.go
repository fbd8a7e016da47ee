package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// WAV returns pcm as a 16-bit mono PCM WAV file at rate.
func WAV(pcm []int16, rate int) []byte {
	data := 2 * len(pcm)
	b := make([]byte, 44+data)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+data))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(2*rate))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(data))
	for i, s := range pcm {
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(s))
	}
	return b
}

// ParseWAV reads a 16-bit PCM WAV file, mono or the first channel of
// several, and returns its samples and rate. A data chunk whose size is
// unknown (0 or 0xFFFFFFFF, as streaming writers leave it) runs to the
// end of the file.
func ParseWAV(b []byte) ([]int16, int, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, errors.New("wav: not a RIFF/WAVE file")
	}
	var rate, channels, bits int
	var format uint16
	p := 12
	for p+8 <= len(b) {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8:]
		switch id {
		case "fmt ":
			if size < 16 || len(body) < 16 {
				return nil, 0, errors.New("wav: short fmt chunk")
			}
			format = binary.LittleEndian.Uint16(body[0:])
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
		case "data":
			if format != 1 || bits != 16 || channels < 1 || rate <= 0 {
				return nil, 0, fmt.Errorf("wav: format %d, %d bits, %d channels at %d Hz: only 16-bit PCM is read", format, bits, channels, rate)
			}
			if size == 0 || size == -1 || uint32(size) == 0xFFFFFFFF || size > len(body) {
				size = len(body)
			}
			step := 2 * channels
			pcm := make([]int16, size/step)
			for i := range pcm {
				pcm[i] = int16(binary.LittleEndian.Uint16(body[i*step:]))
			}
			return pcm, rate, nil
		}
		p += 8 + size + size%2
	}
	return nil, 0, errors.New("wav: no data chunk")
}

// Resample converts pcm from one rate to another with a windowed-sinc
// (Hann, 16 zero crossings) low-pass interpolator. It is meant for test
// speech and runs at a few hundred times real time.
func Resample(pcm []int16, from, to int) []int16 {
	if from == to || len(pcm) == 0 {
		return append([]int16(nil), pcm...)
	}
	const zeros = 16
	cutoff := min(1, float64(to)/float64(from)) * 0.95
	n := int(int64(len(pcm)) * int64(to) / int64(from))
	out := make([]int16, n)
	half := float64(zeros) / cutoff
	for i := range out {
		x := float64(i) * float64(from) / float64(to)
		lo, hi := int(math.Ceil(x-half)), int(math.Floor(x+half))
		var acc, wsum float64
		for j := max(lo, 0); j <= min(hi, len(pcm)-1); j++ {
			d := float64(j) - x
			w := 0.5 + 0.5*math.Cos(math.Pi*d/half)
			k := cutoff * w
			if a := math.Pi * d * cutoff; a != 0 {
				k *= math.Sin(a) / a
			}
			acc += k * float64(pcm[j])
			wsum += k
		}
		if wsum != 0 {
			acc /= wsum
		}
		out[i] = int16(max(min(acc, math.MaxInt16), math.MinInt16))
	}
	return out
}
