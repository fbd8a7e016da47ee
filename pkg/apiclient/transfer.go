package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/propagation"
)

// ImportRequest is a transcript file to import as a finished meeting
// (POST /v1/meetings/import).
type ImportRequest struct {
	// File is read once, as it is uploaded; Name is its file name (its
	// extension names the format unless Format does).
	File io.Reader
	Name string
	// Format is vtt, srt, jsonl or qmsum; empty: from Name, else sniffed.
	Format   string
	Title    string
	Language string
	Project  string
	// StartedAt is when the meeting started; zero: now.
	StartedAt time.Time
}

// ImportResult is the server's answer to an import.
type ImportResult struct {
	MeetingID string `json:"meeting_id"`
	Format    string `json:"format"`
	// Created is false when the same file was imported before.
	Created    bool    `json:"created"`
	Segments   int     `json:"segments"`
	Inserted   int     `json:"inserted"`
	Duplicates int     `json:"duplicates"`
	Meeting    Meeting `json:"meeting"`
}

// Import uploads a transcript file as a multipart body, streamed from
// req.File (it is never held whole), and returns the meeting it became.
// It is not retried (the file is read once); importing again is safe, the
// server stores nothing new. The upload has no client timeout of its
// own: bound it with ctx.
func (c *Client) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		pw.CloseWithError(writeImportForm(mw, req))
	}()
	defer pr.Close()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v1/meetings/import", pr)
	if err != nil {
		return ImportResult{}, fmt.Errorf("build request: %w", err)
	}
	hreq.Header.Set("Content-Type", mw.FormDataContentType())
	var out ImportResult
	if err := c.stream(hreq, func(r io.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, maxResponseBytes))
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &out)
	}); err != nil {
		return ImportResult{}, err
	}
	return out, nil
}

func writeImportForm(mw *multipart.Writer, req ImportRequest) error {
	for _, f := range []struct{ k, v string }{
		{"format", req.Format}, {"title", req.Title}, {"language", req.Language}, {"project", req.Project},
	} {
		if f.v != "" {
			if err := mw.WriteField(f.k, f.v); err != nil {
				return err
			}
		}
	}
	if !req.StartedAt.IsZero() {
		if err := mw.WriteField("started_at", req.StartedAt.UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	name := req.Name
	if name == "" {
		name = "transcript"
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(fw, req.File); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return mw.Close()
}

// ExportTranscript writes the meeting's whole transcript in format (vtt,
// srt, md, json or jsonl) to w.
func (c *Client) ExportTranscript(ctx context.Context, meetingID, format string, w io.Writer) error {
	if meetingID == "" {
		return ErrNoMeetingID
	}
	return c.export(ctx, "/v1/meetings/"+url.PathEscape(meetingID)+"/transcript?format="+url.QueryEscape(format), w)
}

// ExportPR writes the PR as Markdown (format md) or JSON (json) to w.
func (c *Client) ExportPR(ctx context.Context, prID, format string, w io.Writer) error {
	if prID == "" {
		return fmt.Errorf("PR id is empty")
	}
	return c.export(ctx, "/v1/prs/"+url.PathEscape(prID)+"?format="+url.QueryEscape(format), w)
}

func (c *Client) export(ctx context.Context, path string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+path, nil)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	return c.stream(req, func(r io.Reader) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// stream sends req once, without the per-attempt timeout, and hands a
// 2xx body to read; other statuses are an *APIError.
func (c *Client) stream(req *http.Request, read func(io.Reader) error) error {
	req.Header.Set("User-Agent", c.userAgent)
	traceContext.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	hc := *c.hc
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return newAPIError(resp.StatusCode, b)
	}
	if err := read(resp.Body); err != nil {
		return fmt.Errorf("%s %s: read response: %w", req.Method, req.URL.Path, err)
	}
	return nil
}
