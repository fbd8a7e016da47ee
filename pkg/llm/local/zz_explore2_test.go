package local_test

import (
	"context"
	"os"
	"testing"

	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/meetingctx"
)

func TestExploreKorean(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	texts := []string{
		"네, 그럼 오늘은 리모컨 배터리 문제부터 이야기해 볼게요.",
		"음 지난번 사용자 조사에서 배터리가 너무 빨리 닳는다는 불만이 제일 많았어요.",
		"네",
		"그래서 충전식 배터리를 넣는 방안을 검토했는데, 단가가 개당 삼천 원 정도 올라갑니다.",
		"충전식 배터리로 가면 충전 거치대도 따로 디자인해야 하지 않나요?",
		"맞아요. 거치대 디자인은 디자인팀에서 다음 주까지 시안을 만들어 주기로 했습니다.",
		"음",
		"그럼 배터리는 충전식으로 결정하고, 단가는 마케팅팀이랑 한 번 더 확인하죠.",
	}
	turns := make([]meetingctx.Turn, len(texts))
	for i, x := range texts {
		turns[i] = meetingctx.Turn{Seq: i, Text: x}
	}
	sum, err := local.NewSummarizer().Summarize(context.Background(), turns, nil)
	t.Logf("%+v %v", sum, err)
}
