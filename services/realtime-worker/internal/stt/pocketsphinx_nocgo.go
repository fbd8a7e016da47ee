//go:build !cgo

package stt

import "errors"

type psDecoder struct{}

func newPSDecoder(PocketSphinxConfig, []Word) (*psDecoder, error) {
	return nil, errors.New("pocketsphinx: built without cgo (libpocketsphinx); rebuild with CGO_ENABLED=1 and libpocketsphinx-dev installed")
}

func (*psDecoder) decode([]int16) (string, float32, error) {
	return "", 0, errors.New("pocketsphinx: built without cgo")
}

func (*psDecoder) free() {}

func (*psDecoder) start() error          { return errors.New("pocketsphinx: built without cgo") }
func (*psDecoder) process([]int16) error { return errors.New("pocketsphinx: built without cgo") }
func (*psDecoder) end() (string, float32, error) {
	return "", 0, errors.New("pocketsphinx: built without cgo")
}
func (*psDecoder) abort() {}
