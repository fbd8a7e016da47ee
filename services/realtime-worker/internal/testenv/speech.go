package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
)

// ErrNoEspeak: espeak-ng is not installed (Debian: apt install espeak-ng;
// scripts/dev-up.sh installs it).
var ErrNoEspeak = errors.New("espeak-ng not found")

// Voices are the espeak-ng voices the speech tests use: two accents, men
// and women.
var Voices = []string{"en-us", "en-us+f3", "en+m3", "en-us+f2"}

// Speak synthesises text with espeak-ng's voice at words per minute (0:
// espeak's default) and returns it as 16 kHz mono PCM.
func Speak(text, voice string, wpm int) ([]int16, error) {
	bin, err := exec.LookPath("espeak-ng")
	if err != nil {
		return nil, ErrNoEspeak
	}
	args := []string{"-v", voice, "--stdout"}
	if wpm > 0 {
		args = append(args, "-s", fmt.Sprint(wpm))
	}
	cmd := exec.Command(bin, append(args, text)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("espeak-ng %s: %w: %s", voice, err, strings.TrimSpace(stderr.String()))
	}
	pcm, rate, err := audio.ParseWAV(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("espeak-ng %s: %w", voice, err)
	}
	return audio.Resample(pcm, rate, audio.SampleRate), nil
}
