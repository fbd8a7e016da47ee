package stt_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
)

func TestOpenAISendsWAVAndRetriesTransientFailures(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("request %s with %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			t.Errorf("no file: %v", err)
			return
		}
		data, _ := io.ReadAll(f)
		pcm, rate, err := audio.ParseWAV(data)
		if err != nil || rate != audio.SampleRate || len(pcm) != audio.SampleRate/2 {
			t.Errorf("upload: %d samples at %d Hz, %v; want 8000 at 16000", len(pcm), rate, err)
		}
		if r.FormValue("model") != "m" || r.FormValue("language") != "ko" || r.FormValue("response_format") != "verbose_json" {
			t.Errorf("fields model=%q language=%q response_format=%q", r.FormValue("model"), r.FormValue("language"), r.FormValue("response_format"))
		}
		switch n {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusInternalServerError)
		case 3:
			time.Sleep(300 * time.Millisecond) // beyond the attempt timeout
		default:
			_, _ = io.WriteString(w, `{"text":" 안녕하세요 회의 시작합니다","language":"korean","segments":[
				{"text":" 안녕하세요","avg_logprob":-0.1,"no_speech_prob":0.01},
				{"text":" 회의 시작합니다","avg_logprob":-0.3,"no_speech_prob":0.02},
				{"text":" 구독","avg_logprob":-1.5,"no_speech_prob":0.9}]}`)
		}
	}))
	defer srv.Close()
	p := stt.NewOpenAI(stt.OpenAIConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", Timeout: 100 * time.Millisecond,
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	res, err := p.Transcribe(context.Background(), stt.Request{PCM: make([]int16, audio.SampleRate/2), Language: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "안녕하세요 회의 시작합니다" || res.Language != "ko" || res.Confidence < 0.7 || res.Confidence > 0.9 {
		t.Errorf("result %+v: want the two speech segments, ko, confidence about 0.8", res)
	}
	if calls.Load() != 4 {
		t.Errorf("%d calls, want 4 (429, 500, timeout, success)", calls.Load())
	}
}

func TestOpenAIPermanentErrorsAreNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	p := stt.NewOpenAI(stt.OpenAIConfig{BaseURL: srv.URL + "/v1", BackoffBase: time.Millisecond})
	_, err := p.Transcribe(context.Background(), stt.Request{PCM: make([]int16, 100)})
	if !errors.Is(err, stt.ErrPermanent) || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls; want a permanent error after 1", err, calls.Load())
	}
}

func TestOpenAIFallsBackToJSONWhenVerboseJSONIsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("response_format") == "verbose_json" {
			http.Error(w, `{"error":{"message":"response_format verbose_json is not supported"}}`, http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"text":"hello there"}`)
	}))
	defer srv.Close()
	p := stt.NewOpenAI(stt.OpenAIConfig{BaseURL: srv.URL + "/v1", BackoffBase: time.Millisecond})
	res, err := p.Transcribe(context.Background(), stt.Request{PCM: make([]int16, 100), Language: "en"})
	if err != nil || res.Text != "hello there" || res.Language != "en" || res.Confidence != 1 {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestWordErrors(t *testing.T) {
	if e, n := stt.WordErrors("We ship on Friday.", "we shipped on friday"); e != 1 || n != 4 {
		t.Errorf("WordErrors = %d/%d, want 1/4", e, n)
	}
	if e, n := stt.WordErrors("a b c", ""); e != 3 || n != 3 {
		t.Errorf("WordErrors empty hyp = %d/%d", e, n)
	}
}
