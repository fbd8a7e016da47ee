package segment

import "strings"

// set builds a lookup table from space-separated words.
func set(words ...string) map[string]bool {
	m := make(map[string]bool)
	for _, ws := range words {
		for _, w := range strings.Fields(ws) {
			m[w] = true
		}
	}
	return m
}

// englishStop are English function words, conversational fillers and
// transcript markup words; they carry no topic.
var englishStop = set(
	// function words
	`a about above after again against all am an and any are aren as at be because been before being
	below between both but by can cannot could couldn did didn do does doesn doing don down during each
	few for from further had hadn has hasn have haven having he her here hers herself him himself his how
	if in into is isn it its itself let me more most mustn my myself no nor not of off on once only or
	other ought our ours ourselves out over own same shan she should shouldn so some such than that the
	their theirs them themselves then there these they this those through to too under until up very was
	wasn we were weren what when where which while who whom why will with won would wouldn you your
	yours yourself yourselves ll re ve im ive id youre thats dont cant wont isnt`,
	// conversational fillers and hedges
	`um umm uh uhh uhm erm er ah aha eh hm hmm mm mmm mhm huh oh ooh ow wow yeah yes yep yup nope ok okay
	okey alright right well like just really actually basically literally kind sort kinda sorta gonna
	wanna gotta got get gets getting go goes going gone say says said see sees saw look looks looking
	know knows knew think thinks thought mean means guess maybe perhaps probably sure thing things stuff
	lot lots bit also anyway anyways whatever somehow something anything everything nothing someone
	anyone everyone somebody anybody one ones two way yea hey hi hello bye thanks thank please sorry
	fine great good nice cool exactly definitely totally pretty quite still even ever already much many
	little now today then though although however need needs want wants wanted make makes made let
	lets put take takes come comes came tell told talk talking talked give gives use used using try
	trying tried done else mhmm hmmm uhhuh might may must shall us cuz cos cause around across along
	among yet guy guys gonna anyhow somewhere anywhere everywhere whether either neither mr mrs ms dr`,
	// transcript markup words
	`disfmarker vocalsound nonvocalsound comment gap pause laugh laughter noise inaudible`,
)

// koreanStop are Korean function words, fillers and very common verbs,
// given after particle stripping where that applies.
var koreanStop = set(
	// fillers and discourse markers
	`네 넵 예 음 어 아 응 엄 흠 오 와 헐 그 이 저 좀 뭐 막 자 그냥 이제 그리고 그래서 그런데 근데
	하지만 그러면 그럼 그러니까 그니까 그러나 또한 또 아니 아니요 아뇨 진짜 정말 너무 많이 약간 조금
	다시 더 잘 다 안 못 꼭 딱 일단 아마 혹시 사실 그래 그래요 그렇죠 그렇 그쵸 맞아요 맞습니다 맞
	알겠습니다 알겠 알았어요 감사합니다 감사 고맙습니다 죄송합니다 네네 예예 오케이 좋아요 좋습니다 좋
	괜찮 괜찮아요 있잖아요`,
	// particles standing alone after a word in another script ("API를")
	`은 는 가 을 를 에 의 로 과 도 만 랑 요 으로 에서 에게 까지 부터 이랑 하고`,
	// honorifics after a name, with their particles ("David님이", "서연 님")
	`님 님이 님은 님도 님께 님께서 님한테 님이랑 님과 님의 님을 씨 씨가 씨는 씨도`,
	// adverbs
	`따로 함께 먼저 나중에 계속 바로 항상 다들 모두 전부 거의 아직 이미 벌써 혹은 또는 아까 방금 되게 엄청 완전
	많이 별로 특히 보통 그대로`,
	// pronouns, demonstratives, bound nouns
	`것 거 게 걸 건 수 때 등 및 중 우리 저희 제가 내가 저는 나는 너 너희 당신 그거 이거 저거 그게
	이게 저게 그건 이건 그걸 이걸 여기 거기 저기 이런 그런 저런 이렇게 그렇게 저렇게 어떤 어떻게 무슨
	왜 언제 어디 누구 뭔가 뭐가 무엇 지금 오늘 대한 대해 대해서 관해 관해서 통해 위해 위한 같이 처럼`,
	// very common verbs and their bare stems
	`하 해 했 하다 한다 합니다 했습니다 해요 했어요 하는 하고 할 한 있 있다 있어 있어요 있습니다 있는
	없 없다 없어요 없습니다 없는 같 같아요 같습니다 같은 되 돼 된 됩니다 되는 생각 말씀 말 얘기 보 봐
	보면 봐요 싶 싶어요 싶습니다 겠 하겠습니다 입니다 이다 아닌 아니라 가면 가서 가고 가는 갈 간 오면 와서
	주고 주면 줘 줘요 주세요 보고 봐서 알 알고 모르 모르겠 드리 드릴게요 드리겠습니다 대로 끝나 끝나고 끝난 끝나면`,
)
