package library

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"proofglass/backend/learnrank"
)

// TeachRanker writes questions from the library's own pages and measures its ranking on the questions of documents
// held out; with o.Train it also trains a ranker on the other documents' questions and saves it, and every search
// uses it from then on. Every named collection must exist.
func (l *Library) TeachRanker(ctx context.Context, o learnrank.Options) (*learnrank.Report, error) {
	for _, c := range o.Collections {
		if err := l.collectionExists(ctx, c); err != nil {
			return nil, err
		}
	}
	return learnrank.Run(ctx, l.KB, l.Searcher, o)
}

// RankerReport is the report saved with the library's learned ranker; nil when it has none.
func (l *Library) RankerReport(ctx context.Context) (*learnrank.Report, error) {
	s, saved, err := l.KB.Search.RankerReport(ctx)
	if err != nil || saved.IsZero() {
		return nil, err
	}
	var r learnrank.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("read ranker report: %w", err)
	}
	if r.Saved.IsZero() {
		r.Saved = saved.UTC().Truncate(time.Millisecond)
	}
	return &r, nil
}

// ForgetRanker deletes the library's learned rankers: searches go back to the hand-set weights.
func (l *Library) ForgetRanker(ctx context.Context) error {
	if err := l.KB.Search.DeleteRankers(ctx); err != nil {
		return err
	}
	l.Searcher.ForgetRanker()
	return nil
}
