package textutil

import "strings"

// Loanwords. Korean spells many English words of work in Hangul
// ("테스트", "대시보드", "스크린샷"), and people who switch between the two
// languages say a thing in one and repeat it in the other ("I'll write
// the conflict test plan" — "conflict 테스트 플랜 3월 17일까지"). A Hangul
// word that spells an English word has that word as its term, so the two
// match in search, in answers and where the PR tells one task from two.
// Only spellings are listed, not translations (일정 may be a schedule, a
// plan or a date): each Hangul spelling below is one English word, in
// the form Terms gives the English word.
var loanwords, spellings = func() (map[string]string, map[string][]string) {
	m, r := map[string]string{}, map[string][]string{}
	for _, pair := range strings.Split(loanwordList, ",") {
		ko, en, ok := strings.Cut(strings.TrimSpace(pair), " ")
		if !ok {
			panic("textutil: loanword without its English word: " + pair)
		}
		en = strings.TrimSpace(en)
		m[ko] = en
		r[en] = append(r[en], ko)
	}
	return m, r
}()

// loanword returns the English word a Hangul word spells, as it is or
// with one particle ("테스트를": "test"), and whether it spells one. The
// word is looked up whole first: "로고" ends in a syllable that is also a
// particle.
func loanword(w string) (string, bool) {
	if en, ok := loanwords[w]; ok {
		return en, true
	}
	en, ok := loanwords[StripParticle(w)]
	return en, ok
}

// WithSpellings appends to terms the Hangul spellings of its terms, for
// a search over text stored as written rather than as terms (Postgres
// full-text search over topics): "dashboard" finds "대시보드는" then. A
// text whose terms include a term has, lowercased, the term or one of
// its spellings in it.
func WithSpellings(terms []string) []string {
	for _, t := range terms[:len(terms):len(terms)] {
		terms = append(terms, spellings[t]...)
	}
	return terms
}

// loanwordList pairs Hangul spellings with their English words, "ko en"
// separated by commas; a word may have several spellings.
const loanwordList = `테스트 test, 플랜 plan, 스케줄 schedule, 스케쥴 schedule, 대시보드 dashboard, 대쉬보드 dashboard, 스크린샷 screenshot,
릴리즈 release, 릴리스 release, 노트 note, 템플릿 template, 디자인 design, 디자이너 designer, 로드맵 roadmap, 데모 demo,
배너 banner, 머지 merge, 리허설 rehearsal, 스토어 store, 섹션 section, 런북 runbook, 버그 bug, 픽스 fix, 핫픽스 hotfix,
패치 patch, 빌드 build, 롤아웃 rollout, 롤백 rollback, 스위치 switch, 서버 server, 클라이언트 client, 데이터 data,
데이터베이스 database, 쿼리 query, 인덱스 index, 캐시 cache, 로그 log, 세션 session, 트래픽 traffic, 스테이징 staging,
프로덕션 production, 마이그레이션 migration, 백업 backup, 모니터링 monitoring, 알람 alarm, 체크리스트 checklist,
마일스톤 milestone, 데드라인 deadline, 스프린트 sprint, 백로그 backlog, 티켓 ticket, 이슈 issue, 리뷰 review,
피드백 feedback, 프로토타입 prototype, 목업 mockup, 와이어프레임 wireframe, 버튼 button, 메뉴 menu, 아이콘 icon, 폰트 font,
컬러 color, 레이아웃 layout, 페이지 page, 온보딩 onboarding, 트라이얼 trial, 프리미엄 premium, 세일즈 sales, 마케팅 marketing,
캠페인 campaign, 브랜드 brand, 로고 logo, 슬로건 slogan, 파트너 partner, 유저 user, 앱 app, 웹 web, 플랫폼 platform,
모바일 mobile, 안드로이드 android, 아이폰 iphone, 아이패드 ipad, 태블릿 tablet, 프로젝트 project, 매니저 manager,
엔지니어 engineer, 팀 team, 미팅 meeting, 스탠드업 standup, 워크숍 workshop, 프레젠테이션 presentation, 슬라이드 slide,
파일 file, 폴더 folder, 링크 link, 채널 channel, 이메일 email, 메일 mail, 캘린더 calendar, 버전 version, 업데이트 update,
업그레이드 upgrade, 포맷 format, 스펙 spec, 리스크 risk, 프라이싱 pricing, 라이선스 license, 라이센스 license, 플래그 flag,
피처 feature, 모델 model, 시스템 system, 서비스 service, 네트워크 network, 오프라인 offline, 온라인 online, 싱크 sync,
크래시 crash, 에러 error, 타임아웃 timeout, 레이턴시 latency, 커넥션 connection, 메모리 memory, 배터리 battery, 스크린 screen,
디스플레이 display, 카메라 camera, 센서 sensor, 리모컨 remote, 리모트 remote, 컨트롤 control, 케이스 case, 플라스틱 plastic,
칩 chip, 프로세서 processor, 소프트웨어 software, 하드웨어 hardware, 인터페이스 interface, 프로그램 program, 코드 code,
스크립트 script, 테이블 table, 리포트 report, 차트 chart, 그래프 graph, 서베이 survey, 인터뷰 interview, 리서치 research,
컨셉 concept, 콘셉트 concept, 아이디어 idea, 프로세스 process, 가이드 guide, 가이드라인 guideline, 매뉴얼 manual,
트레이닝 training, 비디오 video, 오디오 audio, 레코딩 recording, 트랜스크립트 transcript, 엠바고 embargo, 에이전시 agency`
