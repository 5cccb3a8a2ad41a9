package questioner

import (
	"path/filepath"
	"strings"
)

// docName is how a question may name its document from the document's facets: "Northwind's 2023 annual report",
// or in Chinese "Northwind 2023年年度报告". Empty when the facets name nothing.
type docName struct {
	en, zh string
	year   string
}

// newDocName names a document by its facets; a document without any is named by its file's name without the
// extension ("blood_loss_report.pdf" → "blood loss report"), so a question can still point at it.
func newDocName(f map[string]string, fileName string) docName {
	org := strings.TrimSpace(f["org"])
	year := strings.TrimSpace(f["year"])
	kind := displayPhrase(strings.TrimSpace(f["kind"]))
	title := strings.TrimSpace(f["title"])
	if org == "" && year == "" && kind == "" && title == "" && fileName != "" {
		base := filepath.Base(fileName)
		title = strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(
			strings.TrimSuffix(base, filepath.Ext(base))))
	}
	d := docName{year: year}
	noun := kind
	if noun == "" {
		noun = "document"
	}
	lead := ""
	if year != "" {
		lead = year + " "
	}
	switch {
	case org != "":
		d.en = org + "'s " + lead + noun
	case kind != "" || year != "":
		d.en = "the " + lead + noun
	case title != "":
		d.en = "“" + title + "”"
	}
	zhKind := zhKinds[strings.ToLower(strings.TrimSpace(f["kind"]))]
	switch k := strings.TrimSpace(f["kind"]); {
	case zhKind != "":
	case hasHan(k) || strings.ContainsAny(k, "0123456789"):
		zhKind = k // a Chinese kind, or a form's name ("10-K")
	default:
		zhKind = "文档"
	}
	switch {
	case org != "" || year != "":
		d.zh = strings.TrimSpace(org + " " + zhYear(year) + zhKind)
	case f["kind"] != "":
		d.zh = zhKind
	case title != "":
		d.zh = "《" + title + "》"
	}
	return d
}

// zhKinds are the facets' kinds of document in Chinese.
var zhKinds = map[string]string{"annual report": "年度报告", "earnings release": "业绩公告", "paper": "论文",
	"manual": "手册", "slide deck": "演示文稿", "brochure": "宣传册", "form": "表格", "book": "书", "report": "报告",
	"court opinion": "判决书", "hearing": "听证记录"}

func zhYear(y string) string {
	if y == "" {
		return ""
	}
	return y + "年"
}

// named says how a question names its document: the facets' name about half the time (by the page's draw), else
// plainly "the document" ("文档"). ok reports that the facets' name was used.
func (d docName) named(zh bool, useFacets bool) (name string, ok bool) {
	switch {
	case zh && useFacets && d.zh != "":
		return d.zh, true
	case zh:
		return "文档", false
	case useFacets && d.en != "":
		return d.en, true
	}
	return "the document", false
}

// inDoc puts the document's name before a question that does not mention it: "In Northwind's 2023 annual report,
// what was …?" ("在…中，…").
func inDoc(q, name string, zh bool) string {
	if zh {
		return "在" + name + "中，" + q
	}
	return "In " + name + ", " + lowerFirst(q)
}
