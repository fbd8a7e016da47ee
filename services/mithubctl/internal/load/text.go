package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum"
)

// koreanTurns are spoken between the source meeting's turns, so Korean text takes
// the same path as English.
var koreanTurns = []struct{ speaker, name, text string }{
	{"kim-minsu", "김민수", "이번 스프린트에서는 결제 모듈 리팩터링을 먼저 끝내기로 했습니다."},
	{"lee-jieun", "이지은", "제가 금요일까지 API 문서를 정리해서 공유하겠습니다."},
	{"park-jihoon", "박지훈", "배포 일정은 아직 정해지지 않았습니다. 다음 주 월요일에 다시 논의하죠."},
	{"kim-minsu", "김민수", "예산은 지난 분기 수준으로 동결하는 걸로 결정했습니다."},
	{"lee-jieun", "이지은", "테스트 커버리지가 70퍼센트 아래로 떨어지면 머지를 막는 게 어떨까요?"},
	{"park-jihoon", "박지훈", "고객 인터뷰 결과를 보면 온보딩 화면이 너무 복잡하다는 의견이 많았어요."},
	{"kim-minsu", "김민수", "로그 수집은 다음 달부터 새 파이프라인으로 옮기겠습니다."},
	{"lee-jieun", "이지은", "회의록 초안은 제가 내일까지 작성해 주세요라고 요청받았습니다."},
}

// koreanQuestions are asked between the QMSum queries.
var koreanQuestions = []string{
	"예산에 대해서 무엇을 결정했나요?",
	"누가 API 문서를 정리하기로 했어?",
	"배포 일정은 어떻게 됐나요?",
	"지금까지 논의한 내용을 요약해 줘.",
}

// meetingText is one source meeting: its spoken turns and its questions.
type meetingText struct {
	utts      []apiclient.Utterance
	questions []string
}

// corpus is the text every load meeting draws from.
type corpus struct {
	meetings    []meetingText
	koreanEvery int
}

// loadCorpus reads the text of the load meetings: the one meeting in file
// when it is set, else the QMSum val meetings under dir.
func loadCorpus(dir, file string, koreanEvery int) (*corpus, error) {
	files := []string{file}
	where := file
	if file == "" {
		var err error
		files, err = filepath.Glob(filepath.Join(dir, "val", "*.json"))
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("no QMSum meetings under %s/val", dir)
		}
		slices.Sort(files)
		where = "the QMSum meetings under " + dir + "/val"
	}
	c := &corpus{koreanEvery: koreanEvery}
	for _, f := range files {
		mt, err := readMeetingText(f)
		if err != nil {
			return nil, err
		}
		if len(mt.utts) == 0 {
			continue
		}
		if len(mt.questions) == 0 {
			mt.questions = []string{"What did the team decide?"}
		}
		c.meetings = append(c.meetings, mt)
	}
	if len(c.meetings) == 0 {
		return nil, fmt.Errorf("no spoken turns in %s", where)
	}
	return c, nil
}

// readMeetingText reads one meeting: a QMSum .json with its specific
// queries, or a .jsonl utterance file with the queries of its
// NAME.annotations.json when there is one.
func readMeetingText(file string) (meetingText, error) {
	if !strings.HasSuffix(file, ".jsonl") {
		m, err := qmsum.Load(file)
		if err != nil {
			return meetingText{}, err
		}
		mt := meetingText{utts: qmsum.Utterances(m, "")}
		for _, q := range m.SpecificQueries {
			mt.questions = append(mt.questions, q.Query)
		}
		return mt, nil
	}
	utts, err := qmsum.LoadJSONL(file, "")
	if err != nil {
		return meetingText{}, err
	}
	mt := meetingText{utts: utts}
	b, err := os.ReadFile(strings.TrimSuffix(file, ".jsonl") + ".annotations.json")
	if errors.Is(err, fs.ErrNotExist) {
		return mt, nil
	}
	if err != nil {
		return meetingText{}, err
	}
	var ann struct {
		Questions []struct {
			Query string `json:"query"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(b, &ann); err != nil {
		return meetingText{}, fmt.Errorf("%s annotations: %w", file, err)
	}
	for _, q := range ann.Questions {
		if q.Query != "" {
			mt.questions = append(mt.questions, q.Query)
		}
	}
	return mt, nil
}

// korean reports whether the n-th item (0-based) is Korean.
func (c *corpus) korean(n int) bool {
	return c.koreanEvery > 0 && n%c.koreanEvery == c.koreanEvery-1
}

// utterance returns meeting slot's n-th utterance with segment id
// prefix-n. Text cycles through the slot's QMSum meeting; times keep
// increasing across cycles.
func (c *corpus) utterance(slot, n int, prefix string) apiclient.Utterance {
	src := c.meetings[slot%len(c.meetings)].utts
	u := src[n%len(src)]
	if c.korean(n) {
		k := koreanTurns[(n/max(c.koreanEvery, 1))%len(koreanTurns)]
		u.SpeakerID, u.SpeakerName, u.Text = k.speaker, k.name, k.text
	}
	span := src[len(src)-1].EndMS + 1000
	cycle := int64(n / len(src))
	u.StartMS += cycle * span
	u.EndMS += cycle * span
	u.SegmentID = SegmentID(prefix, n)
	u.Confidence = 0.9
	return u
}

// SegmentID is the id of the n-th utterance a run sends to the meeting
// whose ids start with prefix.
func SegmentID(prefix string, n int) string { return fmt.Sprintf("%s-%06d", prefix, n) }

// question returns meeting slot's n-th question.
func (c *corpus) question(slot, n int) string {
	if c.korean(n) {
		return koreanQuestions[(n/max(c.koreanEvery, 1))%len(koreanQuestions)]
	}
	qs := c.meetings[slot%len(c.meetings)].questions
	return qs[n%len(qs)]
}
