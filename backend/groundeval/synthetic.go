package groundeval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"proofglass/backend/kb"
)

// Generated documents: annual reports of companies over several years (tables under "in millions" and "in
// thousands" notes, dates), member surveys with "(51 %)" labels, and Chinese annual reports in 万元 and 亿元. Every
// figure is known, so each answer can state it truly and then altered in each way an answer goes wrong.

// Synthetic returns the generated documents and their cases for seed.
func Synthetic(seed uint64) ([]Doc, []Case) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, c := range []string{"Northwind Holdings", "Fabrikam Industries", "Litware Systems"} {
		g.filings(c, []int{2021, 2022, 2023})
	}
	for _, o := range []string{"Contoso Credit Union", "Riverside Library Friends", "Alpine Cycling Club"} {
		g.survey(o)
	}
	for _, c := range []string{"华远科技", "东方制造", "青川能源"} {
		g.zhReport(c, 2023)
	}
	return g.docs, g.cases
}

type gen struct {
	r     *rand.Rand
	docs  []Doc
	cases []Case
}

func (g *gen) add(set, form, alter, answer, claim, truth string, page int, region *[4]float64) {
	g.cases = append(g.cases, Case{Set: set, Form: form, Alter: alter, Answer: answer, Claim: claim, Truth: truth,
		Doc: len(g.docs), Page: page, Region: region})
}

// grouped writes n with thousands commas.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// alterDigit changes one digit of s after its first significant one: a typo that keeps the figure's size.
func (g *gen) alterDigit(s string) string {
	var at []int
	seen := false
	for i, c := range s {
		if c >= '0' && c <= '9' {
			if seen {
				at = append(at, i)
			}
			seen = seen || c != '0'
		}
	}
	if len(at) == 0 {
		return ""
	}
	i := at[g.r.IntN(len(at))]
	d := int(s[i] - '0')
	nd := (d + 1 + g.r.IntN(8)) % 10
	return s[:i] + strconv.Itoa(nd) + s[i+1:]
}

// swapDigits swaps two neighbouring, different digits of s; "" when there are none.
func (g *gen) swapDigits(s string) string {
	var at []int
	for i := 0; i+1 < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' && s[i+1] >= '0' && s[i+1] <= '9' && s[i] != s[i+1] {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return ""
	}
	i := at[g.r.IntN(len(at))]
	return s[:i] + string(s[i+1]) + string(s[i]) + s[i+2:]
}

func (g *gen) between(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

type metric struct {
	label  string // as the table's row writes it
	phrase string // as an answer names it
}

var incomeRows = []metric{{"Net sales", "net sales"}, {"Cost of sales", "cost of sales"}, {"Gross margin", "gross margin"},
	{"Research and development", "research and development expense"}, {"Operating income", "operating income"},
	{"Net income", "net income"}}

var balanceRows = []metric{{"Cash and cash equivalents", "cash and cash equivalents"}, {"Total assets", "total assets"},
	{"Total liabilities", "total liabilities"}, {"Total shareholders' equity", "total shareholders' equity"}}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	"October", "November", "December"}

// filings writes one annual report a year for company: a cover page with dates and prose figures, an income
// statement in millions over three years and a balance sheet in thousands over two, and cases for each.
func (g *gen) filings(company string, years []int) {
	income := map[int][]int64{} // by year, in millions, rows as incomeRows
	balance := map[int][]int64{}
	for y := years[0] - 2; y <= years[len(years)-1]; y++ {
		sales := g.between(4000, 30000)
		cost := sales * g.between(55, 70) / 100
		rd := sales * g.between(5, 12) / 100
		op := (sales - cost - rd) * g.between(40, 80) / 100
		income[y] = []int64{sales, cost, sales - cost, rd, op, op * g.between(60, 80) / 100}
		assets := g.between(2_000_000, 40_000_000)
		liab := assets * g.between(30, 70) / 100
		balance[y] = []int64{assets * g.between(5, 20) / 100, assets, liab, assets - liab}
	}
	for _, y := range years {
		filed := fmt.Sprintf("%s %d, %d", months[g.r.IntN(3)+1], g.between(1, 28), y+1)
		cover := newSheet(1)
		cover.row([]float64{60}, fmt.Sprintf("%s Annual Report %d", company, y))
		cover.para(fmt.Sprintf("Annual report for the fiscal year ended December 31, %d. Filed with the Securities and "+
			"Exchange Commission on %s.", y, filed))
		cover.para(fmt.Sprintf("In %d our net sales were $%s million, compared with $%s million in %d, and net income was "+
			"$%s million.", y, grouped(income[y][0]), grouped(income[y-1][0]), y-1, grouped(income[y][5])))
		q := 1 + g.r.IntN(4)
		cover.para(fmt.Sprintf("Our strongest quarter was Q%d %d, when a new product line launched.", q, y))

		is := newSheet(2)
		is.row([]float64{60}, company)
		is.row([]float64{60}, "Consolidated Statements of Operations")
		is.row([]float64{60}, "(in millions, except per share data)")
		xs := []float64{60, 330, 410, 490}
		is.row(xs, "Year ended December 31,", strconv.Itoa(y), strconv.Itoa(y-1), strconv.Itoa(y-2))
		rowSpans := make([]span, len(incomeRows))
		for i, m := range incomeRows {
			rowSpans[i], _ = is.row(xs, m.label, grouped(income[y][i]), grouped(income[y-1][i]), grouped(income[y-2][i]))
		}

		bs := newSheet(3)
		bs.row([]float64{60}, company)
		bs.row([]float64{60}, "Consolidated Balance Sheets")
		bs.row([]float64{60}, "(in thousands)")
		bxs := []float64{60, 330, 450}
		bs.row(bxs, "", fmt.Sprintf("December 31, %d", y), fmt.Sprintf("December 31, %d", y-1))
		balSpans := make([]span, len(balanceRows))
		for i, m := range balanceRows {
			balSpans[i], _ = bs.row(bxs, m.label, grouped(balance[y][i]), grouped(balance[y-1][i]))
		}

		// The income statement: each row in the report's year, written in millions or rounded in billions.
		for i, m := range incomeRows {
			v := income[y][i]
			region := rowSpans[i].region()
			if i%2 == 1 {
				region = nil // the page cited, no zoom
			}
			mil := "$" + grouped(v) + " million"
			g.add("filings", "table-scaled", AlterNone, fmt.Sprintf("In fiscal %d, %s's %s was %s.", y, company, m.phrase, mil), mil, grouped(v), 1, region)
			if alt := g.alterDigit(grouped(v)); alt != "" {
				a := "$" + alt + " million"
				g.add("filings", "table-scaled", AlterDigit, fmt.Sprintf("In fiscal %d, %s's %s was %s.", y, company, m.phrase, a), a, grouped(v), 1, region)
			}
			if alt := g.swapDigits(grouped(v)); alt != "" {
				a := "$" + alt + " million"
				g.add("filings", "table-scaled", AlterSwap, fmt.Sprintf("%s reported %s of %s for %d.", company, m.phrase, a, y), a, grouped(v), 1, region)
			}
			bil := "$" + grouped(v) + " billion"
			g.add("filings", "table-scaled", AlterScale, fmt.Sprintf("In fiscal %d, %s's %s was %s.", y, company, m.phrase, bil), bil, grouped(v), 1, region)
			other := income[y-1-g.r.IntN(2)][i]
			if other != v {
				a := "$" + grouped(other) + " million"
				g.add("filings", "table-scaled", AlterColumn, fmt.Sprintf("In fiscal %d, %s's %s was %s.", y, company, m.phrase, a), a, grouped(v), 1, region)
			}
			if v >= 1000 {
				b := fmt.Sprintf("$%.2f billion", float64(v)/1000)
				g.add("filings", "table-rounded", AlterNone, fmt.Sprintf("%s's %s for %d came to %s.", company, m.phrase, y, b), b, grouped(v), 1, region)
				wrong := fmt.Sprintf("$%.2f billion", float64(v)/1000+0.03+float64(g.r.IntN(20))/100)
				g.add("filings", "table-rounded", AlterDigit, fmt.Sprintf("%s's %s for %d came to %s.", company, m.phrase, y, wrong), wrong, grouped(v), 1, region)
			}
			// The true figure, citing the balance sheet: it is on the income statement.
			g.add("filings", "table-scaled", AlterPage, fmt.Sprintf("In fiscal %d, %s's %s was %s.", y, company, m.phrase, mil), mil, grouped(v), 2, nil)
		}
		// The balance sheet, in thousands: an answer writes billions or millions.
		for i, m := range balanceRows {
			v := balance[y][i]
			region := balSpans[i].region()
			if i%2 == 0 {
				region = nil
			}
			b := fmt.Sprintf("$%.2f billion", float64(v)/1e6)
			if v < 1_000_000 {
				b = fmt.Sprintf("$%.1f million", float64(v)/1e3)
			}
			g.add("filings", "table-thousands", AlterNone, fmt.Sprintf("At December 31, %d, %s's %s were %s.", y, company, m.phrase, b), b, grouped(v), 2, region)
			mil := fmt.Sprintf("$%s million", grouped(int64(math.Round(float64(v)/1e3))))
			g.add("filings", "table-thousands", AlterNone, fmt.Sprintf("%s's %s stood at %s at December 31, %d.", company, m.phrase, mil, y), mil, grouped(v), 2, region)
			if alt := g.alterDigit(grouped(int64(math.Round(float64(v) / 1e3)))); alt != "" {
				a := "$" + alt + " million"
				g.add("filings", "table-thousands", AlterDigit, fmt.Sprintf("%s's %s stood at %s at December 31, %d.", company, m.phrase, a, y), a, grouped(v), 2, region)
			}
			wrongScale := strings.Replace(b, "billion", "million", 1)
			if strings.Contains(b, "million") {
				wrongScale = strings.Replace(b, "million", "billion", 1)
			}
			g.add("filings", "table-thousands", AlterScale, fmt.Sprintf("At December 31, %d, %s's %s were %s.", y, company, m.phrase, wrongScale), wrongScale, grouped(v), 2, region)
			prev := fmt.Sprintf("$%s million", grouped(int64(math.Round(float64(balance[y-1][i])/1e3))))
			g.add("filings", "table-thousands", AlterColumn, fmt.Sprintf("%s's %s stood at %s at December 31, %d.", company, m.phrase, prev, y), prev, grouped(v), 2, region)
		}
		// The cover's dates and prose figures.
		end := fmt.Sprintf("December 31, %d", y)
		for _, form := range []string{end, fmt.Sprintf("Dec. 31, %d", y), fmt.Sprintf("%d-12-31", y), fmt.Sprintf("31 December %d", y)} {
			g.add("filings", "date", AlterNone, fmt.Sprintf("%s's annual report covers the fiscal year ended %s.", company, form), form, end, 0, nil)
		}
		for _, wrong := range []string{fmt.Sprintf("December 30, %d", y), fmt.Sprintf("December 31, %d", y+1), fmt.Sprintf("November 30, %d", y)} {
			g.add("filings", "date", AlterDate, fmt.Sprintf("%s's annual report covers the fiscal year ended %s.", company, wrong), wrong, end, 0, nil)
		}
		g.add("filings", "date", AlterNone, fmt.Sprintf("The report was filed with the Securities and Exchange Commission on %s.", filed), filed, filed, 0, nil)
		if wrong := g.alterDigit(filed); wrong != "" && wrong != filed {
			if _, err := strconv.Atoi(wrong[len(wrong)-4:]); err == nil {
				g.add("filings", "date", AlterDate, fmt.Sprintf("The report was filed with the Securities and Exchange Commission on %s.", wrong), wrong, filed, 0, nil)
			}
		}
		ordinals := []string{"first", "second", "third", "fourth"}
		for _, f := range []string{fmt.Sprintf("Q%d %d", q, y), fmt.Sprintf("%s quarter of %d", ordinals[q-1], y)} {
			g.add("filings", "quarter", AlterNone, fmt.Sprintf("%s's strongest quarter was the %s.", company, f), strings.TrimPrefix(f, ""), f, 0, nil)
		}
		wq := q%4 + 1
		g.add("filings", "quarter", AlterDate, fmt.Sprintf("%s's strongest quarter was Q%d %d.", company, wq, y), fmt.Sprintf("Q%d %d", wq, y), fmt.Sprintf("Q%d %d", q, y), 0, nil)
		ns := "$" + grouped(income[y][0]) + " million"
		g.add("filings", "prose", AlterNone, fmt.Sprintf("In %d net sales were %s.", y, ns), ns, grouped(income[y][0]), 0, nil)
		if alt := g.alterDigit(grouped(income[y][0])); alt != "" {
			a := "$" + alt + " million"
			g.add("filings", "prose", AlterDigit, fmt.Sprintf("In %d net sales were %s.", y, a), a, "$"+grouped(income[y][0])+" million", 0, nil)
		}
		g.docs = append(g.docs, Doc{Name: fmt.Sprintf("%s 10-K %d.pdf", company, y), Pages: []kb.Unit{cover.unit(), is.unit(), bs.unit()}})
	}
}
