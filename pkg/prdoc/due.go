package prdoc

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// dueRule finds a stated due date and resolves it against the meeting
// date (zero when it cannot).
type dueRule struct {
	re      *regexp.Regexp
	resolve func(m []string, day time.Time) time.Time
}

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
	"월": time.Monday, "화": time.Tuesday, "수": time.Wednesday, "목": time.Thursday,
	"금": time.Friday, "토": time.Saturday, "일": time.Sunday,
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// monthDayPattern is an English month and day ("March 13", "Mar. 13"),
// the month's first three letters and the day in its two groups.
const monthDayPattern = `(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})`

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10, "a": 1}

// dueRules are tried in order; the first match wins.
var dueRules = []dueRule{
	{regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`), func(m []string, _ time.Time) time.Time {
		t, err := time.Parse("2006-01-02", m[1]+"-"+m[2]+"-"+m[3])
		if err != nil {
			return time.Time{}
		}
		return t
	}},
	{regexp.MustCompile(`(\d{1,2})월\s*(\d{1,2})일\s*(?:([월화수목금토일])요일\s*)?(까지|전에|전|에)?`), func(m []string, d time.Time) time.Time {
		mo, _ := strconv.Atoi(m[1])
		day, _ := strconv.Atoi(m[2])
		return onWeekday(monthDay(d, time.Month(mo), day), m[3])
	}},
	{regexp.MustCompile(`\b(?:by|before|until|on|due)\s+(?:(monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?` + monthDayPattern + `(?:st|nd|rd|th)?\b`), func(m []string, d time.Time) time.Time {
		day, _ := strconv.Atoi(m[3])
		return onWeekday(monthDay(d, months[m[2]], day), m[1])
	}},
	{regexp.MustCompile(`(다음\s?주|담주|이번\s?주)?\s*([월화수목금토일])요일\s*(까지|전에|전|에|중)?`), func(m []string, d time.Time) time.Time {
		return weekday(d, weekdays[m[2]], strings.TrimSpace(m[1]))
	}},
	{regexp.MustCompile(`\b(?:(?:by|before|until|on|due)\s+)?(?:(next|this)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`), func(m []string, d time.Time) time.Time {
		which := map[string]string{"next": "다음 주", "this": "이번 주"}[m[1]]
		return weekday(d, weekdays[m[2]], which)
	}},
	{regexp.MustCompile(`\b(?:by\s+)?tomorrow\b|\b(?:by|before|until)\s+(?:today|tonight)\b|(?:내일|모레)\s*(?:까지|중|안에)?|오늘\s*(?:까지|중|안에)`), func(m []string, d time.Time) time.Time {
		switch {
		case strings.Contains(m[0], "tomorrow"), strings.Contains(m[0], "내일"):
			return d.AddDate(0, 0, 1)
		case strings.Contains(m[0], "모레"):
			return d.AddDate(0, 0, 2)
		}
		return d
	}},
	{regexp.MustCompile(`\b(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(day|week|month)\b|\b(eod|eow)\b`), func(m []string, d time.Time) time.Time {
		switch m[1] + m[2] {
		case "day", "eod":
			return d
		case "week", "eow":
			return weekday(d, time.Friday, "이번 주")
		}
		return endOfMonth(d)
	}},
	{regexp.MustCompile(`\b(?:by\s+|before\s+)?next\s+(week|month)\b|(다음\s?주|담주|이번\s?주|다음\s?달|이번\s?달|주말|월말)\s*(까지|중|안에|내로)`), func(m []string, d time.Time) time.Time {
		switch strings.ReplaceAll(m[1]+m[2], " ", "") {
		case "week", "다음주", "담주":
			return weekday(d, time.Monday, "다음 주")
		case "이번주":
			return weekday(d, time.Friday, "이번 주")
		case "주말":
			return weekday(d, time.Sunday, "이번 주")
		case "month", "다음달":
			return endOfMonth(d).AddDate(0, 0, 1)
		}
		return endOfMonth(d)
	}},
	{regexp.MustCompile(`\bin\s+(\d+|one|two|three|four|five|six|seven|ten|a)\s+(day|week)s?\b|(\d+)\s*(일|주)\s*(안에|이내|내로|뒤|후)`), func(m []string, d time.Time) time.Time {
		n, unit := m[1]+m[3], m[2]+m[4]
		k, err := strconv.Atoi(n)
		if err != nil {
			k = numberWords[n]
		}
		if unit == "week" || unit == "주" {
			k *= 7
		}
		return d.AddDate(0, 0, k)
	}},
}

// findDue returns the due date stated in a sentence (as written) and the
// day it resolves to on the meeting's calendar ("" when unknown). Of the
// dates a sentence states, one said as a deadline ("by Friday", "3월
// 13일까지") wins over one that is not ("엠바고 날짜를 3월 31일로 바꾸고,
// 3월 13일까지 알려 줄게요"); otherwise the first rule that matches.
func findDue(s sentence, meeting time.Time) (due, date string) {
	var rule *dueRule
	var loc []int
search:
	for k := range dueRules {
		for _, l := range dueRules[k].re.FindAllStringSubmatchIndex(s.norm, -1) {
			if valueDateRE.MatchString(s.norm[l[1]:]) {
				continue // "3월 31일로 바꾸고": what a date becomes
			}
			if rule == nil {
				rule, loc = &dueRules[k], l
			}
			if deadline(s.norm, l[0], l[1]) {
				rule, loc = &dueRules[k], l
				break search
			}
		}
	}
	if rule == nil {
		return "", ""
	}
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = s.norm[loc[2*i]:loc[2*i+1]]
		}
	}
	due = strings.TrimSpace(sliceOriginal(s, loc[0], loc[1]))
	if !meeting.IsZero() {
		day := time.Date(meeting.Year(), meeting.Month(), meeting.Day(), 0, 0, 0, 0, time.UTC)
		if t := rule.resolve(m, day); !t.IsZero() {
			date = t.Format("2006-01-02")
		}
	}
	return due, date
}

// A date is said as a deadline with a word before it ("by Friday") or
// after it ("금요일까지"), after its weekday too ("3월 16일 월요일까지").
var (
	deadlineInRE    = regexp.MustCompile(`^(by|before|until|due)\b|(까지|전에|안에|내로|이내)$`)
	deadlineAfterRE = regexp.MustCompile(`^\s*([월화수목금토일]요일)?\s*(까지|전에|안에|내로|이내)`)
)

// valueDateRE follows a date said as the value something takes ("엠바고
// 날짜를 3월 31일로 바꾸고", "회의를 금요일로 옮길게요"), not when it is due.
var valueDateRE = regexp.MustCompile(`^\s*([월화수목금토일]요일)?\s*(으로|로)(\s|$|[,.])`)

// deadline reports whether the date norm[from:to] is said as a deadline.
func deadline(norm string, from, to int) bool {
	return deadlineInRE.MatchString(norm[from:to]) || deadlineAfterRE.MatchString(norm[to:])
}

// sliceOriginal maps byte offsets in s.norm back to s.text. Lowercasing
// keeps byte lengths for the scripts the rules match; when it does not,
// the normalised text is returned.
func sliceOriginal(s sentence, from, to int) string {
	if len(s.norm) == len(s.text) {
		return s.text[from:to]
	}
	return s.norm[from:to]
}

// weekday resolves a weekday: in this week ("이번 주"), next week ("다음
// 주") or, plain, the next such day after the meeting.
func weekday(d time.Time, w time.Weekday, which string) time.Time {
	monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	offset := (int(w) + 6) % 7
	switch strings.ReplaceAll(which, " ", "") {
	case "이번주":
		return monday.AddDate(0, 0, offset)
	case "다음주", "담주":
		return monday.AddDate(0, 0, 7+offset)
	}
	ahead := (int(w) - int(d.Weekday()) + 7) % 7
	if ahead == 0 {
		ahead = 7
	}
	return d.AddDate(0, 0, ahead)
}

// monthDay resolves a month and day to the next such date on or after the
// meeting (this year, or next year when it has passed).
func monthDay(d time.Time, m time.Month, day int) time.Time {
	if m < 1 || m > 12 || day < 1 || day > 31 {
		return time.Time{}
	}
	t := time.Date(d.Year(), m, day, 0, 0, 0, 0, time.UTC)
	if t.Month() != m {
		return time.Time{}
	}
	if t.Before(d) {
		t = t.AddDate(1, 0, 0)
	}
	return t
}

// onWeekday returns t when the weekday said with it (a key of weekdays;
// "" when none was) is t's, and the zero time when it is not: "3월 13일
// 금요일" in a year where March 13 is a Saturday names no day on the
// meeting's calendar, so none is given.
func onWeekday(t time.Time, said string) time.Time {
	if w, ok := weekdays[said]; ok && !t.IsZero() && t.Weekday() != w {
		return time.Time{}
	}
	return t
}

func endOfMonth(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
}
