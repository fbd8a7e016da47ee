package httpapi

import (
	"bytes"
	"io"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/transcriptfile"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
)

// importJSONRequest is the JSON form of POST /v1/meetings/import.
type importJSONRequest struct {
	Format    string `json:"format"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Language  string `json:"language"`
	Project   string `json:"project"`
	StartedAt string `json:"started_at"`
	Content   string `json:"content"`
}

type importJSON struct {
	MeetingID  string      `json:"meeting_id"`
	Format     string      `json:"format"`
	Created    bool        `json:"created"`
	Segments   int         `json:"segments"`
	Inserted   int         `json:"inserted"`
	Duplicates int         `json:"duplicates"`
	Meeting    meetingJSON `json:"meeting"`
}

// importMeeting answers POST /v1/meetings/import: a transcript file as a
// multipart upload (part "file", optional fields format, title,
// language, project, started_at) or as JSON {"format", "title",
// "content", …}. The meeting is created (201) or, for a file imported
// before, found (200); see meetings.Service.Import.
func (s *Server) importMeeting(c *fiber.Ctx) error {
	req, err := s.importRequest(c)
	if err != nil {
		return err
	}
	res, err := s.Meetings.Import(c.UserContext(), tenantOf(c).ID, req)
	if err != nil {
		return err
	}
	s.Metrics.ingested.Add(float64(res.Inserted))
	s.Metrics.duplicates.Add(float64(res.Duplicates))
	status := fiber.StatusOK
	if res.Created {
		status = fiber.StatusCreated
	}
	c.Location("/v1/meetings/" + res.Meeting.ID)
	return c.Status(status).JSON(importJSON{
		MeetingID: res.Meeting.ID, Format: string(res.Format), Created: res.Created, Segments: res.Segments,
		Inserted: res.Inserted, Duplicates: res.Duplicates, Meeting: toMeetingJSON(res.Meeting),
	})
}

func (s *Server) importRequest(c *fiber.Ctx) (meetings.ImportRequest, error) {
	mt, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	var j importJSONRequest
	var req meetings.ImportRequest
	if mt == fiber.MIMEMultipartForm {
		form, err := c.MultipartForm()
		if err != nil {
			return req, errInvalid("malformed multipart body: %v", err)
		}
		files := form.File["file"]
		if len(files) != 1 {
			return req, errInvalid("a multipart import needs exactly one part named file")
		}
		fh := files[0]
		value := func(name string) string {
			if v := form.Value[name]; len(v) > 0 {
				return v[0]
			}
			return ""
		}
		j = importJSONRequest{Format: value("format"), Name: value("name"), Title: value("title"),
			Language: value("language"), Project: value("project"), StartedAt: value("started_at")}
		if j.Name == "" {
			j.Name = fh.Filename
		}
		req.Open = func() (io.ReadCloser, error) { return fh.Open() }
	} else {
		if err := decodeJSON(c, &j, false); err != nil {
			return req, err
		}
		if j.Content == "" {
			return req, errInvalid("content is required: the transcript file's text")
		}
		content := j.Content
		req.Open = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil }
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"name", j.Name, maxTitleLen}, {"title", j.Title, maxTitleLen}, {"project", j.Project, 128}} {
		if !utf8.ValidString(f.v) {
			return req, errInvalid("%s is not valid UTF-8", f.name)
		}
		if err := checkText(f.name, f.v, f.max); err != nil {
			return req, err
		}
	}
	if j.Language != "" && !languageRE.MatchString(j.Language) {
		return req, errInvalid("language %q is not a language tag such as ko or en-US", truncate(j.Language, 32))
	}
	if j.Format != "" {
		f, err := transcriptfile.ParseFormat(j.Format)
		if err != nil || f == transcriptfile.Markdown || f == transcriptfile.JSON {
			return req, errInvalid("format must be vtt, srt, jsonl or qmsum, got %q", truncate(j.Format, 32))
		}
		req.Format = f
	}
	t, err := parseStartedAt(j.StartedAt, time.Now())
	if err != nil {
		return req, err
	}
	req.StartedAt = t
	req.Name, req.Title, req.Language, req.Project = j.Name, j.Title, j.Language, j.Project
	return req, nil
}

// maxExportPage is how many rows an export reads from the store at once.
const maxExportPage = 2000

// exportTranscript answers GET /v1/meetings/{id}/transcript?format=: the
// whole transcript as WebVTT, SRT, Markdown, JSON or JSONL, streamed from
// the store page by page.
func (s *Server) exportTranscript(c *fiber.Ctx, format transcriptfile.Format) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	l, err := s.lister()
	if err != nil {
		return err
	}
	ctx, tenant := c.UserContext(), tenantOf(c).ID
	m, err := s.Store.GetMeeting(ctx, tenant, id)
	if err != nil {
		return meetingErr(err)
	}
	// Read every page before answering, so a store failure is still an
	// error status; the body is built in one buffer.
	var buf bytes.Buffer
	w, err := transcriptfile.NewWriter(&buf, format, transcriptfile.Meta{MeetingID: m.ID, Title: m.Title, StartedAt: m.StartedAt})
	if err != nil {
		return errInvalid("%v", err)
	}
	after := -1
	for {
		rows, err := l.ListTranscripts(ctx, tenant, id, after, maxExportPage)
		if err != nil {
			return meetingErr(err)
		}
		for _, r := range rows {
			if err := w.Write(transcriptfile.Segment{ID: r.SegmentID, SpeakerID: r.SpeakerID, SpeakerName: r.SpeakerName,
				Text: r.Text, StartMS: r.StartMS, EndMS: r.EndMS, Confidence: float64(r.Confidence)}); err != nil {
				return err
			}
		}
		if len(rows) < maxExportPage {
			break
		}
		after = rows[len(rows)-1].Seq
	}
	if err := w.Close(); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, transcriptfile.ContentType(format))
	ext := string(format)
	c.Set(fiber.HeaderContentDisposition, `inline; filename="meeting-`+m.ID+`.`+ext+`"`)
	return c.Send(buf.Bytes())
}
