// Package facets finds what a document is — title, organisation, kind, period and date — from its metadata, first
// pages, running headers and footers and file name, and reads the `--where` filters and the facets a question names.
package facets

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"proofglass/backend/kb"
)

// Facets is what a document is.
type Facets struct {
	Title   string `json:"title,omitempty"`
	Org     string `json:"org,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Year    string `json:"year,omitempty"`
	Quarter string `json:"quarter,omitempty"`
	Date    string `json:"date,omitempty"`
	// An e-mail's sender and recipients (to and cc), as its headers write them.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Get returns the facet called name.
func (f Facets) Get(name string) string {
	if d, ok := defOf(name); ok {
		return *d.field(&f)
	}
	return ""
}

// Set sets the facet called name.
func (f *Facets) Set(name, v string) {
	if d, ok := defOf(name); ok {
		*d.field(f) = v
	}
}

// Rows are f as knowledge-base rows of a source, with folded values.
func (f Facets) Rows(source string) []kb.Facet {
	var out []kb.Facet
	for _, n := range Names {
		if v := f.Get(n); v != "" {
			out = append(out, kb.Facet{Name: n, Value: v, Source: source, Norm: Fold(n, v)})
		}
	}
	return out
}

// FromRows gathers rows into Facets (later rows win).
func FromRows(rows []kb.Facet) Facets {
	var f Facets
	for _, r := range rows {
		f.Set(r.Name, r.Value)
	}
	return f
}

// Fold is the form a value is stored for filters and matched in: lower case, spaces collapsed, and for kinds and
// quarters their canonical spelling ("10k" → "10-k", "third quarter" → "q3").
func Fold(name, v string) string {
	v = strings.ToLower(strings.Join(strings.Fields(v), " "))
	if d, ok := defOf(name); ok && d.canonical != nil {
		if c := d.canonical(v); c != "" {
			return strings.ToLower(c)
		}
	}
	return v
}

// Source is what extraction reads of one document.
type Source struct {
	FileName string
	Info     map[string]string // the PDF info dictionary: title, author, subject, keywords, created, modified
	Pages    []string          // text of the leading pages, in order (the first few are read as the cover)
	// Taken is the date a photo was taken or a video made (YYYY-MM-DD, from EXIF or the container): it is the
	// document's date and year, whatever text the picture shows.
	Taken string
}

// coverPages is how many leading pages are read as the document's cover and front matter.
const coverPages = 3

// Extract finds a document's facets; it leaves out what it cannot tell.
func Extract(src Source) Facets {
	var f Facets
	cover := strings.Join(src.Pages[:min(len(src.Pages), coverPages)], "\n")
	first := ""
	if len(src.Pages) > 0 {
		first = src.Pages[0]
	}
	running := RunningLines(src.Pages)
	stem := strings.TrimSuffix(filepath.Base(src.FileName), filepath.Ext(src.FileName))
	fileWords := strings.Join(strings.FieldsFunc(stem, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }), " ")
	info := func(k string) string { return cleanInfo(src.Info[k]) }

	f.Kind = kindOf(fileWords, info("title")+"\n"+info("subject")+"\n"+info("keywords"), cover, strings.Join(running, "\n"), src.Pages)
	f.Org = orgOf(f.Kind, first, cover, running, info("author"), fileWords)
	year, quarter := periodOf(f.Kind, cover, running, info("title")+" "+info("subject"), fileWords)
	f.Date = dateOf(first, src.Info["created"])
	if realDate(src.Taken) { // EXIF and containers write impossible dates too ("2021:02:31")
		f.Date, year = src.Taken, src.Taken[:4]
	}
	if year == "" && len(f.Date) >= 4 && !isFiling(f.Kind) {
		year = f.Date[:4]
	}
	f.Year, f.Quarter = year, quarter
	f.Title = titleOf(info("title"), first, f)
	f.From, f.To = strings.TrimSpace(src.Info["from"]), strings.TrimSpace(src.Info["to"])
	return f
}

// cleanInfo drops metadata values that say nothing: generator names, "untitled", word-processor file names.
func cleanInfo(v string) string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "Microsoft Word - ")
	l := strings.ToLower(v)
	switch {
	case l == "", l == "untitled", l == "title", l == "unknown", l == "(anonymous)", l == "anonymous",
		strings.HasSuffix(l, ".doc"), strings.HasSuffix(l, ".docx"), strings.HasSuffix(l, ".pdf"),
		strings.HasSuffix(l, ".indd"), strings.HasSuffix(l, ".tex"), strings.HasSuffix(l, ".dvi"):
		return ""
	}
	return v
}

// RunningLines are the lines that repeat at the top or the bottom of pages (running headers and footers), with
// digits ignored so "Page 3 of 9" repeats; most frequent first.
func RunningLines(pages []string) []string {
	if len(pages) < 3 {
		return nil
	}
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, p := range pages {
		lines := nonEmptyLines(p)
		seen := map[string]bool{}
		edge := slices.Concat(lines[:min(2, len(lines))], lines[max(min(2, len(lines)), len(lines)-2):])
		for _, l := range edge {
			key := digitsRE.ReplaceAllString(strings.ToLower(l), "#")
			if seen[key] || len([]rune(l)) < 4 {
				continue
			}
			seen[key] = true
			if count[key] == 0 {
				first[key] = l
				order = append(order, key)
			}
			count[key]++
		}
	}
	var out []string
	need := max(3, len(pages)/3)
	for _, key := range order {
		if count[key] >= need && strings.Trim(key, "# ") != "" {
			out = append(out, first[key])
		}
	}
	return out
}

var digitsRE = regexp.MustCompile(`\d+`)

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// titleOf prefers the metadata's title, then the first substantive lines of the first page; a filing is titled by
// its issuer, form and period, which is how people name it.
func titleOf(infoTitle, first string, f Facets) string {
	if isFiling(f.Kind) && f.Org != "" {
		t := f.Org + " Form " + f.Kind
		if f.Year != "" {
			t += " " + f.Year
		}
		if f.Quarter != "" {
			t += " " + f.Quarter
		}
		return t
	}
	infoTitle = strings.TrimSpace(systemIDRE.ReplaceAllString(infoTitle, ""))
	if infoTitle != "" && len([]rune(infoTitle)) >= 4 && len([]rune(infoTitle)) <= 200 {
		return infoTitle
	}
	lines := nonEmptyLines(first)
	for i, l := range lines {
		if boilerplateRE.MatchString(l) || strings.Contains(l, "©") || !hasLetters(l, 4) || dateLine(l) {
			continue
		}
		t := l
		// A title wraps: take the next line when this one ends in the middle of a phrase.
		if i+1 < len(lines) && (continuesRE.MatchString(t) || strings.HasSuffix(t, ":")) && len([]rune(t))+len([]rune(lines[i+1])) <= 200 {
			t += " " + lines[i+1]
		}
		return clip(t, 200)
	}
	return ""
}

var (
	boilerplateRE = regexp.MustCompile(`(?i)^(?:proceedings of|findings of|volume \d|pages? \d|page \d+ of|©|\(c\)|copyright|https?:|www\.|doi|arxiv|\[?publish|united states securities and exchange commission|washington, d\.?c\.?|table of contents|confidential|draft|press release|news release|for immediate release)`)
	// A publishing system's record id glued to a metadata title ("…Report (Apr 2015)_INS1-972072899").
	systemIDRE  = regexp.MustCompile(`_[A-Z]{0,6}\d[\w-]{5,}$`)
	continuesRE = regexp.MustCompile(`(?i)\b(?:with|of|and|for|the|on|in|to|a|an|by|from|via|using|towards?)$`)
)

// dateLine reports a line that is mostly a date ("July 9-14, 2023", "Tuesday, September 11, 2007").
func dateLine(l string) bool {
	rest := l
	for _, re := range []*regexp.Regexp{mdyRE, dmyRE, ymdRE} {
		rest = re.ReplaceAllString(rest, "")
	}
	return rest != l && !hasLetters(rest, 12)
}

func hasLetters(s string, n int) bool {
	c := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if c++; c >= n {
				return true
			}
		}
	}
	return false
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
