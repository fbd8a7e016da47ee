//go:build cgo

package stt

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>

static ps_decoder_t *mh_ps_init(const char *hmm, const char *lm, const char *dict) {
	cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
		"-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", "-bestpath", "no", NULL);
	if (config == NULL) return NULL;
	ps_decoder_t *ps = ps_init(config);
	cmd_ln_free_r(config);
	return ps;
}

static int mh_process(ps_decoder_t *ps, const int16 *pcm, size_t n) {
	return ps_process_raw(ps, pcm, n, FALSE, FALSE);
}

// mh_decode runs one utterance through the search.
static int mh_decode(ps_decoder_t *ps, const int16 *pcm, size_t n) {
	if (ps_start_utt(ps) < 0) return -1;
	if (ps_process_raw(ps, pcm, n, FALSE, TRUE) < 0) { ps_end_utt(ps); return -2; }
	if (ps_end_utt(ps) < 0) return -3;
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"
)

// psDecoder is one libpocketsphinx decoder; it is used by one goroutine
// at a time.
type psDecoder struct{ ps *C.ps_decoder_t }

func newPSDecoder(c PocketSphinxConfig, words []Word) (*psDecoder, error) {
	dir := c.ModelDir
	hmm, lm, dict := filepath.Join(dir, "en-us"), filepath.Join(dir, "en-us.lm.bin"), filepath.Join(dir, "cmudict-en-us.dict")
	for _, f := range []string{hmm, lm, dict} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("pocketsphinx model: %w (install pocketsphinx-en-us, or set MITHUB_STT_POCKETSPHINX_MODEL)", err)
		}
	}
	ch, cl, cd := C.CString(hmm), C.CString(lm), C.CString(dict)
	defer C.free(unsafe.Pointer(ch))
	defer C.free(unsafe.Pointer(cl))
	defer C.free(unsafe.Pointer(cd))
	ps := C.mh_ps_init(ch, cl, cd)
	if ps == nil {
		return nil, fmt.Errorf("pocketsphinx: cannot load the model in %s", dir)
	}
	d := &psDecoder{ps: ps}
	for _, w := range words {
		cw, cp := C.CString(w.Text), C.CString(w.Phones)
		// ps_add_word puts the word in the language model too, as a
		// unigram.
		rc := C.ps_add_word(ps, cw, cp, 1)
		C.free(unsafe.Pointer(cw))
		C.free(unsafe.Pointer(cp))
		if rc < 0 {
			d.free()
			return nil, fmt.Errorf("pocketsphinx: cannot add %q to the dictionary", w.Text)
		}
	}
	return d, nil
}

// decode recognises one whole utterance.
func (d *psDecoder) decode(pcm []int16) (string, float32, error) {
	if len(pcm) == 0 {
		return "", 0, nil
	}
	if rc := C.mh_decode(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm))); rc < 0 {
		return "", 0, fmt.Errorf("%w: pocketsphinx rejected the audio (%d)", ErrPermanent, int(rc))
	}
	return d.result()
}

// result is the finished utterance's words. libpocketsphinx gives no
// calibrated confidence without its slow lattice pass (-bestpath), which
// the decoder skips: the confidence is 0, unknown.
func (d *psDecoder) result() (string, float32, error) {
	var score C.int32
	hyp := C.ps_get_hyp(d.ps, &score)
	if hyp == nil {
		return "", 0, nil
	}
	return cleanHyp(C.GoString(hyp)), 0, nil
}

// start begins an utterance decoded as it arrives.
func (d *psDecoder) start() error {
	if C.ps_start_utt(d.ps) < 0 {
		return fmt.Errorf("%w: pocketsphinx: cannot start an utterance", ErrPermanent)
	}
	return nil
}

// process decodes more of the utterance.
func (d *psDecoder) process(pcm []int16) error {
	if C.mh_process(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm))) < 0 {
		return fmt.Errorf("%w: pocketsphinx rejected the audio", ErrPermanent)
	}
	return nil
}

// end finishes the utterance and returns its words.
func (d *psDecoder) end() (string, float32, error) {
	if C.ps_end_utt(d.ps) < 0 {
		return "", 0, fmt.Errorf("%w: pocketsphinx: cannot end the utterance", ErrPermanent)
	}
	return d.result()
}

// abort ends the utterance, discarding it.
func (d *psDecoder) abort() { C.ps_end_utt(d.ps) }

func (d *psDecoder) free() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
}
