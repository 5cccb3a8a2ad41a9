// Package eval measures Proofglass: evaluation datasets, retrieval metrics and reports.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Question is one line of an evaluation dataset (the format of shared/eval/README.md).
type Question struct {
	ID              string   `json:"id"`
	Question        string   `json:"question"`
	Answer          string   `json:"answer"`
	AnswerFormat    string   `json:"answer_format"`
	EvidencePages   []int    `json:"evidence_pages"` // 1-based
	EvidenceSources []string `json:"evidence_sources"`
	Doc             string   `json:"doc"` // file name of the document
	DocType         string   `json:"doc_type,omitempty"`
	Source          string   `json:"source,omitempty"`
	LabelNote       string   `json:"label_note,omitempty"`
}

// ReadQuestions reads a JSON-lines dataset, checking the fields every consumer relies on.
func ReadQuestions(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	var out []Question
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q Question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if q.ID == "" || q.Question == "" || q.Doc == "" {
			return nil, fmt.Errorf("%s:%d: id, question and doc are required", path, n)
		}
		for _, p := range q.EvidencePages {
			if p < 1 {
				return nil, fmt.Errorf("%s:%d (%s): evidence page %d is not 1-based", path, n, q.ID, p)
			}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}
