package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum"
)

// DefaultBatch is the number of utterances per request unless
// Options.Batch says otherwise.
const DefaultBatch = 50

// API is the part of the agent-api client that a replay uses;
// *apiclient.Client implements it.
type API interface {
	CreateMeeting(ctx context.Context, req apiclient.CreateMeetingRequest) (apiclient.Meeting, error)
	GetMeeting(ctx context.Context, meetingID string) (apiclient.Meeting, error)
	PostUtterances(ctx context.Context, meetingID string, utts []apiclient.Utterance) (apiclient.IngestResult, error)
}

// Options configures a replay.
type Options struct {
	// File is the meeting to replay: .json (QMSum) or .jsonl (one
	// utterance per line). Required.
	File string
	// Rate is the pace in utterances per second. Default 0: as fast as the
	// API accepts them.
	Rate float64
	// Batch is the most utterances per request, 1 to 500. Default 50.
	Batch int
	// MeetingID resumes into an existing meeting. Default "": create a
	// meeting titled after the file name in room "replay-<name>".
	MeetingID string
	// Language of a created meeting. Default "en".
	Language string
	// StartedAt is when a created meeting started: a recorded meeting's
	// date, so that due dates resolve on its calendar. Default: now.
	StartedAt time.Time
	// Progress receives the progress bar and the summary. Default: none.
	Progress io.Writer
}

// clock is the time source of a run; tests replace it.
type clock struct {
	now       func() time.Time
	newTicker func(d time.Duration) (ticks <-chan time.Time, stop func())
}

var realClock = clock{
	now: time.Now,
	newTicker: func(d time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(d)
		return t.C, t.Stop
	},
}

// Run replays opts.File into a meeting and returns the meeting's id. The id
// is also returned with an error once the meeting is known, so the caller
// can resume with Options.MeetingID.
func Run(ctx context.Context, client API, opts Options) (string, error) {
	return run(ctx, client, opts, realClock, isTerminal(opts.Progress))
}

func run(ctx context.Context, client API, opts Options, clk clock, tty bool) (string, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	utts, err := load(opts.File)
	if err != nil {
		return "", err
	}
	meetingID, err := openMeeting(ctx, client, opts)
	if err != nil {
		return "", err
	}
	s := &sender{
		client:    client,
		meetingID: meetingID,
		utts:      utts,
		batch:     opts.Batch,
		progress:  newProgress(opts.Progress, len(utts), tty, clk.now),
	}
	if opts.Rate > 0 {
		err = s.paced(ctx, opts.Rate, clk)
	} else {
		err = s.unthrottled(ctx)
	}
	s.progress.finish()
	if err != nil {
		return meetingID, err
	}
	fmt.Fprintf(opts.Progress, "replayed %d utterances into meeting %s: %d inserted, %d duplicates\n",
		len(utts), meetingID, s.inserted, s.duplicates)
	return meetingID, nil
}

// withDefaults validates o and fills in its defaults.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.File == "":
		return o, errors.New("replay: no file")
	case o.Rate < 0:
		return o, fmt.Errorf("replay: rate %v is negative", o.Rate)
	case o.Batch < 0 || o.Batch > apiclient.MaxUtterancesPerRequest:
		return o, fmt.Errorf("replay: batch %d outside 1..%d", o.Batch, apiclient.MaxUtterancesPerRequest)
	}
	if o.Batch == 0 {
		o.Batch = DefaultBatch
	}
	if o.Language == "" {
		o.Language = "en"
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o, nil
}

// stem is the file's base name without its extension.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// load reads the utterances of a .json (QMSum) or .jsonl file. Segment ids
// are prefixed with the slug of the file name.
func load(path string) ([]apiclient.Utterance, error) {
	prefix := qmsum.Slug(stem(path))
	var utts []apiclient.Utterance
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		m, err := qmsum.Load(path)
		if err != nil {
			return nil, err
		}
		utts = qmsum.Utterances(m, prefix)
	case ".jsonl":
		var err error
		if utts, err = qmsum.LoadJSONL(path, prefix); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("replay %s: unsupported file type %q: want .json (QMSum) or .jsonl", path, ext)
	}
	if len(utts) == 0 {
		return nil, fmt.Errorf("replay %s: no utterances", path)
	}
	return utts, nil
}

// openMeeting checks the meeting to resume, or creates one.
func openMeeting(ctx context.Context, client API, opts Options) (string, error) {
	if opts.MeetingID != "" {
		m, err := client.GetMeeting(ctx, opts.MeetingID)
		if err != nil {
			return "", fmt.Errorf("resume: %w", err)
		}
		fmt.Fprintf(opts.Progress, "resuming meeting %s (%d utterances stored)\n", m.ID, m.Counters.Utterances)
		return m.ID, nil
	}
	name := stem(opts.File)
	m, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{
		Title:     name,
		RoomName:  "replay-" + name,
		Language:  opts.Language,
		StartedAt: opts.StartedAt,
	})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(opts.Progress, "created meeting %s\n", m.ID)
	return m.ID, nil
}
