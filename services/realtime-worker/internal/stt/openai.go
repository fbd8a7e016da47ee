package stt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
)

// OpenAIConfig configures the openai provider.
type OpenAIConfig struct {
	// BaseURL ends in /v1 (default https://api.openai.com/v1).
	BaseURL string
	APIKey  string
	// Model is sent as model (default whisper-1).
	Model string
	// Timeout bounds one attempt (default 30s).
	Timeout time.Duration
	// MaxRetries is the retries after the first attempt (default 4).
	MaxRetries int
	// BackoffBase and BackoffMax bound the full-jitter wait between
	// attempts (defaults 250ms and 5s); a Retry-After up to a minute is
	// honoured instead.
	BackoffBase, BackoffMax time.Duration
	HTTPClient              *http.Client
}

// OpenAI transcribes through POST {BaseURL}/audio/transcriptions, one WAV
// file per utterance.
type OpenAI struct {
	c OpenAIConfig
	// plainJSON: the server refused verbose_json once; ask for json.
	plainJSON atomic.Bool
}

// NewOpenAI returns the provider.
func NewOpenAI(c OpenAIConfig) *OpenAI {
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Model == "" {
		c.Model = "whisper-1"
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	} else if c.MaxRetries == 0 {
		c.MaxRetries = 4
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = 250 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 5 * time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return &OpenAI{c: c}
}

// Name is "openai".
func (*OpenAI) Name() string { return ProviderOpenAI }

// Close does nothing.
func (*OpenAI) Close() error { return nil }

// statusError is an HTTP error reply.
type statusError struct {
	status     int
	body       string
	retryAfter time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("transcription server answered %d: %s", e.status, e.body)
}

// Transcribe uploads the utterance and returns its text. 408, 429, 5xx,
// timeouts and transport errors are retried with backoff; other replies
// fail at once with ErrPermanent.
func (o *OpenAI) Transcribe(ctx context.Context, req Request) (Result, error) {
	wav := audio.WAV(req.PCM, audio.SampleRate)
	for n := 0; ; n++ {
		res, err := o.attempt(ctx, wav, req.Language)
		if err == nil {
			return res, nil
		}
		var se *statusError
		if errors.As(err, &se) && se.status == http.StatusBadRequest && !o.plainJSON.Load() &&
			strings.Contains(strings.ToLower(se.body), "response_format") {
			// A server without verbose_json: ask for json from now on.
			o.plainJSON.Store(true)
			n--
			continue
		}
		wait, again := o.nextWait(ctx, n, err)
		if !again {
			if n > 0 {
				err = fmt.Errorf("after %d attempts: %w", n+1, err)
			}
			return Result{}, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Result{}, fmt.Errorf("%w (last attempt: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

func (o *OpenAI) nextWait(ctx context.Context, n int, err error) (time.Duration, bool) {
	if n >= o.c.MaxRetries || ctx.Err() != nil || errors.Is(err, ErrPermanent) {
		return 0, false
	}
	ceiling := o.c.BackoffMax
	if n < 30 {
		ceiling = min(ceiling, o.c.BackoffBase<<n)
	}
	wait := rand.N(ceiling + 1)
	var se *statusError
	if errors.As(err, &se) && se.retryAfter > 0 {
		if se.retryAfter > time.Minute {
			return 0, false
		}
		wait = se.retryAfter
	}
	return wait, true
}

// verbose is the reply: verbose_json carries segments, json text alone.
type verbose struct {
	Text     string `json:"text"`
	Language string `json:"language"`
	Segments []struct {
		Text         string  `json:"text"`
		AvgLogprob   float64 `json:"avg_logprob"`
		NoSpeechProb float64 `json:"no_speech_prob"`
	} `json:"segments"`
}

func (o *OpenAI) attempt(ctx context.Context, wav []byte, lang string) (Result, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	format := "verbose_json"
	if o.plainJSON.Load() {
		format = "json"
	}
	fields := [][2]string{{"model", o.c.Model}, {"response_format", format}, {"temperature", "0"}}
	if lang != "" {
		fields = append(fields, [2]string{"language", lang})
	}
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	fw, _ := mw.CreateFormFile("file", "utterance.wav")
	_, _ = fw.Write(wav)
	_ = mw.Close()

	actx, cancel := context.WithTimeout(ctx, o.c.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, o.c.BaseURL+"/audio/transcriptions", &body)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	hreq.Header.Set("Content-Type", mw.FormDataContentType())
	if o.c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.c.APIKey)
	}
	resp, err := o.c.HTTPClient.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("transcription request: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return Result{}, fmt.Errorf("read transcription: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		se := &statusError{status: resp.StatusCode, body: strings.TrimSpace(string(data[:min(len(data), 300)]))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			se.retryAfter = time.Duration(s) * time.Second
		}
		if resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			return Result{}, fmt.Errorf("%w: %w", ErrPermanent, se)
		}
		return Result{}, se
	}
	var v verbose
	if err := json.Unmarshal(data, &v); err != nil {
		return Result{}, fmt.Errorf("%w: transcription reply is not JSON: %w", ErrPermanent, err)
	}
	return v.result(lang), nil
}

// result keeps the segments that are speech (Whisper invents text for
// noise: a segment it thinks is not speech and is unsure of is dropped)
// and averages their confidence.
func (v verbose) result(hint string) Result {
	res := Result{Text: strings.TrimSpace(v.Text), Confidence: 1, Language: languageTag(v.Language, hint)}
	if len(v.Segments) == 0 {
		return res
	}
	var texts []string
	var sum float64
	for _, s := range v.Segments {
		if s.NoSpeechProb > 0.6 && s.AvgLogprob < -1 {
			continue
		}
		texts = append(texts, strings.TrimSpace(s.Text))
		sum += math.Exp(min(s.AvgLogprob, 0))
	}
	res.Text = strings.TrimSpace(strings.Join(texts, " "))
	res.Confidence = 0
	if len(texts) > 0 {
		res.Confidence = float32(min(max(sum/float64(len(texts)), 0), 1))
	}
	return res
}

// languageTag turns Whisper's language names into tags.
func languageTag(heard, hint string) string {
	switch h := strings.ToLower(strings.TrimSpace(heard)); {
	case h == "":
		return hint
	case h == "english":
		return "en"
	case h == "korean":
		return "ko"
	default:
		return h
	}
}
