package groundeval

import (
	"fmt"
	"strconv"
	"strings"

	"proofglass/backend/kb"
)

type question struct {
	text, topic string
	options     []metric
}

var surveyQuestions = []question{
	{"How satisfied are you with our service overall?", "the service", []metric{{"Very satisfied", "very satisfied"},
		{"Somewhat satisfied", "somewhat satisfied"}, {"Neither satisfied nor dissatisfied", "neither satisfied nor dissatisfied"},
		{"Dissatisfied", "dissatisfied"}}},
	{"Would you recommend us to a friend?", "recommending us", []metric{{"Yes, certainly", "certain to recommend us"},
		{"Probably", "probably going to recommend us"}, {"Not sure", "not sure about recommending us"}, {"No", "not going to recommend us"}}},
	{"How often do you visit our branches?", "visits", []metric{{"Every week", "visiting every week"},
		{"Every month", "visiting every month"}, {"A few times a year", "visiting a few times a year"}, {"Never", "never visiting"}}},
}

// shares splits 100 into n whole percentages, none below 3.
func (g *gen) shares(n int) []int {
	out := make([]int, n)
	left := 100 - 3*n
	for i := range out {
		out[i] = 3
	}
	for left > 0 {
		k := g.r.IntN(n)
		step := min(left, 1+g.r.IntN(12))
		out[k] += step
		left -= step
	}
	return out
}

// survey writes a member survey whose answers are labelled "(51 %)" beside each option, as a chart's labels are,
// and cases for each share.
func (g *gen) survey(org string) {
	p := newSheet(1)
	p.row([]float64{60}, org+" Member Survey 2024")
	p.row([]float64{60}, fmt.Sprintf("Base: all respondents (n = %s)", grouped(g.between(400, 3000))))
	p.y += lineStep
	for qi, q := range surveyQuestions {
		p.row([]float64{60}, fmt.Sprintf("Q%d. %s", qi+1, q.text))
		shares := g.shares(len(q.options))
		spans := make([]span, len(q.options))
		for i, o := range q.options {
			spans[i], _ = p.row([]float64{80, 400}, o.label, fmt.Sprintf("(%d %%)", shares[i]))
		}
		p.y += lineStep
		for i, o := range q.options {
			region := spans[i].region()
			if i%2 == 1 {
				region = nil
			}
			s := strconv.Itoa(shares[i])
			forms := []string{"(" + s + " %)", s + " %", s + " percent"}
			form := forms[i%len(forms)]
			answer := func(f string) string {
				return fmt.Sprintf("In %s's survey, %s of respondents chose %s when asked about %s.", org, f, o.label, q.topic)
			}
			g.add("surveys", "share-label", AlterNone, answer(form), form, "("+s+" %)", 0, region)
			alt := g.alterDigit(s)
			if alt == "" {
				alt = strconv.Itoa(shares[i] + 2) // one digit: a near value
			}
			f := strings.Replace(form, s, alt, 1)
			g.add("surveys", "share-label", AlterDigit, answer(f), f, "("+s+" %)", 0, region)
			if alt := g.swapDigits(s); alt != "" && alt[0] != '0' {
				f := strings.Replace(form, s, alt, 1)
				g.add("surveys", "share-label", AlterSwap, answer(f), f, "("+s+" %)", 0, region)
			}
			// Another option's share: the same form of figure, on the same page, in another row.
			j := (i + 1 + g.r.IntN(len(q.options)-1)) % len(q.options)
			if shares[j] != shares[i] {
				f := strings.Replace(form, s, strconv.Itoa(shares[j]), 1)
				g.add("surveys", "share-label", AlterRow, answer(f), f, "("+s+" %)", 0, region)
			}
		}
	}
	g.docs = append(g.docs, Doc{Name: org + " survey 2024.pdf", Pages: []kb.Unit{p.unit()}})
}

var zhIncome = []metric{{"营业收入", "营业收入"}, {"营业成本", "营业成本"}, {"营业利润", "营业利润"}, {"净利润", "净利润"}}
var zhBalance = []metric{{"资产总计", "资产总计"}, {"负债合计", "负债合计"}}

// zhReport writes a Chinese annual report: an income statement in 万元 and a balance sheet in 亿元, two years each,
// and cases that write the figures in 万元 and in 亿元.
func (g *gen) zhReport(company string, y int) {
	is := newSheet(1)
	is.row([]float64{60}, fmt.Sprintf("%s%d年年度报告", company, y))
	is.row([]float64{60}, "合并利润表")
	is.row([]float64{60}, "单位：万元")
	xs := []float64{60, 330, 450}
	is.row(xs, "项目", fmt.Sprintf("%d年度", y), fmt.Sprintf("%d年度", y-1))
	vals := make([][2]int64, len(zhIncome))
	spans := make([]span, len(zhIncome))
	for i, m := range zhIncome {
		vals[i] = [2]int64{g.between(20_000, 900_000), g.between(20_000, 900_000)}
		spans[i], _ = is.row(xs, m.label, grouped(vals[i][0]), grouped(vals[i][1]))
	}
	bs := newSheet(2)
	bs.row([]float64{60}, "合并资产负债表")
	bs.row([]float64{60}, "单位：亿元")
	bs.row(xs, "项目", fmt.Sprintf("%d年12月31日", y), fmt.Sprintf("%d年12月31日", y-1))
	bal := make([][2]float64, len(zhBalance))
	bspans := make([]span, len(zhBalance))
	for i, m := range zhBalance {
		bal[i] = [2]float64{float64(g.between(1000, 90000)) / 100, float64(g.between(1000, 90000)) / 100}
		bspans[i], _ = bs.row(xs, m.label, fmt.Sprintf("%.2f", bal[i][0]), fmt.Sprintf("%.2f", bal[i][1]))
	}
	for i, m := range zhIncome {
		v := vals[i][0]
		region := spans[i].region()
		if i%2 == 1 {
			region = nil
		}
		wan := grouped(v) + "万元"
		say := func(f string) string { return fmt.Sprintf("%d年度，%s实现%s%s。", y, company, m.phrase, f) }
		g.add("zh-reports", "table-万元", AlterNone, say(wan), wan, grouped(v), 0, region)
		yi := fmt.Sprintf("%.2f亿元", float64(v)/1e4)
		g.add("zh-reports", "table-亿元", AlterNone, say("约"+yi), yi, grouped(v), 0, region)
		if alt := g.alterDigit(grouped(v)); alt != "" {
			g.add("zh-reports", "table-万元", AlterDigit, say(alt+"万元"), alt+"万元", grouped(v), 0, region)
		}
		if alt := g.swapDigits(grouped(v)); alt != "" {
			g.add("zh-reports", "table-万元", AlterSwap, say(alt+"万元"), alt+"万元", grouped(v), 0, region)
		}
		g.add("zh-reports", "table-万元", AlterScale, say(grouped(v)+"亿元"), grouped(v)+"亿元", grouped(v), 0, region)
		if o := vals[i][1]; o != v {
			g.add("zh-reports", "table-万元", AlterColumn, say(grouped(o)+"万元"), grouped(o)+"万元", grouped(v), 0, region)
		}
	}
	for i, m := range zhBalance {
		v := bal[i][0]
		region := bspans[i].region()
		if i%2 == 0 {
			region = nil
		}
		s := fmt.Sprintf("%.2f", v)
		say := func(f string) string { return fmt.Sprintf("截至%d年末，%s%s为%s。", y, company, m.phrase, f) }
		g.add("zh-reports", "table-亿元", AlterNone, say(s+"亿元"), s+"亿元", s, 1, region)
		if alt := g.alterDigit(s); alt != "" {
			g.add("zh-reports", "table-亿元", AlterDigit, say(alt+"亿元"), alt+"亿元", s, 1, region)
		}
		g.add("zh-reports", "table-亿元", AlterScale, say(s+"万元"), s+"万元", s, 1, region)
		prev := fmt.Sprintf("%.2f", bal[i][1])
		g.add("zh-reports", "table-亿元", AlterColumn, say(prev+"亿元"), prev+"亿元", s, 1, region)
	}
	g.docs = append(g.docs, Doc{Name: company + fmt.Sprintf("%d年年度报告.pdf", y), Pages: []kb.Unit{is.unit(), bs.unit()}})
}
