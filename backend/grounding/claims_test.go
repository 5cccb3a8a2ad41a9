package grounding

import (
	"slices"
	"testing"
)

func TestExtract(t *testing.T) {
	type want struct {
		text  string
		kind  string
		value float64 // first reading; 0 for dates and phrases
		date  string
	}
	cases := []struct {
		name string
		in   string
		want []want
	}{
		{"integer and decimal", "It rose from 42 to 3.75 units.", []want{{"42", KindNumber, 42, ""}, {"3.75", KindNumber, 3.75, ""}}},
		{"thousands with commas", "1,234,567 people", []want{{"1,234,567", KindNumber, 1234567, ""}}},
		{"thousands with dots and decimal comma", "1.234.567,89 EUR", []want{{"1.234.567,89 EUR", KindCurrency, 1234567.89, ""}}},
		{"thousands with spaces", "a total of 1 200 000 cases", []want{{"1 200 000", KindNumber, 1200000, ""}}},
		{"percent sign", "up 12.5% on the year", []want{{"12.5%", KindPercent, 12.5, ""}}},
		{"percent spaced", "87 % of patients", []want{{"87 %", KindPercent, 87, ""}}},
		{"percent word", "12.5 percent", []want{{"12.5 percent", KindPercent, 12.5, ""}}},
		{"currency and scale", "revenue of $1.2 billion", []want{{"$1.2 billion", KindCurrency, 1.2e9, ""}}},
		{"scale bn", "€3bn", []want{{"€3bn", KindCurrency, 3e9, ""}}},
		{"scale thousand", "5 thousand", []want{{"5 thousand", KindNumber, 5000, ""}}},
		{"accounting negative", "a loss of (1,234)", []want{{"(1,234)", KindNumber, -1234, ""}}},
		{"minus sign", "−5 and -7.5", []want{{"−5", KindNumber, -5, ""}, {"-7.5", KindNumber, -7.5, ""}}},
		{"range", "between 300.0-500.0 ml", []want{{"300.0-500.0", KindRange, 300, ""}}},
		{"range with to", "from 10 to 20 days", []want{{"10 to 20", KindRange, 10, ""}}},
		{"year", "in 2021 and 1998", []want{{"2021", KindYear, 2021, ""}, {"1998", KindYear, 1998, ""}}},
		{"ISO date", "on 2022-04-25", []want{{"2022-04-25", KindDate, 0, "2022-04-25"}}},
		{"month name date", "Processed April 25, 2022.", []want{{"April 25, 2022", KindDate, 0, "2022-04-25"}}},
		{"day month year", "on 25 April 2022", []want{{"25 April 2022", KindDate, 0, "2022-04-25"}}},
		{"CJK date", "2012年5月21日发布", []want{{"2012年5月21日", KindDate, 0, "2012-05-21"}}},
		{"full-width digits", "共３５０人", []want{{"３５０", KindNumber, 350, ""}}},
		{"full-width percent", "增长１２．５％", []want{{"１２．５％", KindPercent, 12.5, ""}}},
		{"CJK scale words", "营收3.5亿元，存款12万", []want{{"3.5亿元", KindCurrency, 3.5e8, ""}, {"12万", KindNumber, 120000, ""}}},
		{"CJK numerals", "二十亿零一千二百零二万零一百二十", []want{{"二十亿零一千二百零二万零一百二十", KindNumber, 2012020120, ""}}},
		{"CJK title marks", "据《血液报告》显示", []want{{"血液报告", KindName, 0, ""}}},
		{"CJK title marks, another kind", "见〈统计附录〉", []want{{"统计附录", KindName, 0, ""}}},
		// A Chinese sentence has no capitals: its runs of Han text are paraphrase, not names (nor is a translation
		// of an English page); only its figures are checked.
		{"Chinese prose is not names", "这项研究关注产前 XIII 因子活性与产后失血，样本为 151 名产妇。", []want{{"151", KindNumber, 151, ""}}},
		{"CJK percent", "百分之十二", []want{{"百分之十二", KindPercent, 12, ""}}},
		{"CJK digit by digit", "二〇一二", []want{{"二〇一二", KindYear, 2012, ""}}},
		{"references are not figures", "See Table 1, page 3 and Figure 2.", nil},
		{"list markers are not figures", "1. First\n2. Second", []want{{"First", KindName, 0, ""}, {"Second", KindName, 0, ""}}[:0]},
		{"inside words", "an A4 sheet of H2O", nil},
		{"citation marks are not figures", "Revenue rose [1] by 7% [2].", []want{{"7%", KindPercent, 7, ""}}},
		{"a name's number", "COVID-19 cases rose 12%", []want{{"12%", KindPercent, 12, ""}}},
		{"quote", `the report says "unfortunately, the publisher was unable"`, []want{{`"unfortunately, the publisher was unable"`, KindQuote, 0, ""}}},
		{"curly quote", "called “Sample Size Calculation” here", []want{{"“Sample Size Calculation”", KindQuote, 0, ""}}},
		{"capitalised name", "The Impact of Prepartum Factor XIII Activity was studied", []want{{"Impact of Prepartum Factor XIII Activity", KindName, 0, ""}}},
		{"two names in a list", "by Christian Haslinger and Torsten Hothorn", []want{{"Christian Haslinger", KindName, 0, ""}, {"Torsten Hothorn", KindName, 0, ""}}},
		{"one capitalised word is no name", "Patients were counted.", nil},
		{"no claim", "The report does not say.", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Extract(tc.in)
			var gw []want
			for _, c := range got {
				w := want{text: c.Text, kind: c.Kind, date: c.Date}
				if len(c.Values) > 0 {
					w.value = c.Values[0]
				}
				gw = append(gw, w)
				if tc.in[c.Start:c.End] != c.Text {
					t.Errorf("claim %q: offsets %d..%d hold %q", c.Text, c.Start, c.End, tc.in[c.Start:c.End])
				}
			}
			if !slices.Equal(gw, tc.want) {
				t.Fatalf("Extract(%q)\n got %+v\nwant %+v", tc.in, gw, tc.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	cases := []struct {
		answer, page string
		want         bool
	}{
		{"1.2 billion", "1,200 million", true},
		{"1 200 000 000", "1.2 billion", true},
		{"1.2 billion", "1,200,000,000", true},
		{"12.5 %", "12.5 percent", true},
		{"12.5%", "12.5 per cent", true},
		{"350", "350.0", true},
		{"87%", "86.6%", true}, // rounded as the answer writes it
		{"3.1", "3.14", true},  // rounded to the answer's decimals
		{"(1,234)", "-1,234", true},
		{"-1,234", "(1,234)", true},
		{"３５０", "350", true},
		{"3.5亿", "350,000,000", true},
		{"百分之十二", "12%", true},
		{"1.234,5", "1,234.5", true},
		{"$5", "5 USD", true},
		{"2022-04-25", "April 25, 2022", true},
		{"2012年5月21日", "2012 年 5 月 21 日", true},
		{"300-500", "300.0-500.0", true},
		{"87%", "85%", false},
		{"1.2 million", "1.2 billion", false},
		{"$5", "€5", false},
		{"4", "4.4", false}, // a bare integer is not matched by rounding
		{"300-500", "300-600", false},
		{"300-500", "300", false},
		{"2022-04-25", "2022-04-26", false},
		{"85", "no figure here", false},
	}
	for _, tc := range cases {
		if got := Equal(tc.answer, tc.page); got != tc.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tc.answer, tc.page, got, tc.want)
		}
	}
}
