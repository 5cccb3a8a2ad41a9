package kb

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// PlanStep is one line of SQLite's EXPLAIN QUERY PLAN.
type PlanStep struct {
	ID, Parent int
	Detail     string
}

// QueryPlan returns SQLite's plan for query with args.
func (k *KB) QueryPlan(ctx context.Context, query string, args ...any) ([]PlanStep, error) {
	rows, err := k.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, fmt.Errorf("explain query plan: %w", err)
	}
	defer rows.Close()
	var out []PlanStep
	for rows.Next() {
		var s PlanStep
		var unused int
		if err := rows.Scan(&s.ID, &s.Parent, &unused, &s.Detail); err != nil {
			return nil, fmt.Errorf("explain query plan: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// selectiveKeys are the columns whose equality names a handful of rows in any Proofglass table: a probe on one of them
// inside a loop costs O(log n) per outer row.
var selectiveKeys = map[string]bool{
	"rowid": true, "id": true, "unit_id": true, "document_id": true, "run_id": true, "conversation_id": true,
	"hash": true, "name": true, "sha256": true, "node_id": true,
}

var (
	loopRe  = regexp.MustCompile(`^(SCAN|SEARCH) (\S+)(?: USING (.*))?$`)
	firstRe = regexp.MustCompile(`\(([A-Za-z_][A-Za-z_0-9]*)\s*[=<>]`)
)

// QuadraticSteps lists the steps of a plan whose cost multiplies two table sizes: a full scan, or a probe through an
// index whose leading constrained column is not a key (e.g. (embedder=?), which every passage of that embedder
// shares), run inside a loop — a later loop of a join or the body of a correlated subquery. The first loop of a
// query (the driving scan) is linear and allowed; non-correlated subqueries run once and start afresh.
func QuadraticSteps(plan []PlanStep) []string {
	children := map[int][]PlanStep{}
	for _, s := range plan {
		children[s.Parent] = append(children[s.Parent], s)
	}
	var bad []string
	var walk func(parent int, nested bool, path string)
	walk = func(parent int, nested bool, path string) {
		loops := 0
		for _, s := range children[parent] {
			d := s.Detail
			if m := loopRe.FindStringSubmatch(d); m != nil {
				inner := nested || loops > 0
				loops++
				if inner && !selectiveProbe(m[1], m[3]) {
					bad = append(bad, strings.TrimSpace(path+" "+d))
				}
				walk(s.ID, inner, path)
				continue
			}
			switch {
			case strings.HasPrefix(d, "CORRELATED "):
				// Runs once per row of the enclosing loop.
				walk(s.ID, nested || loops > 0, path+" "+d+":")
			case strings.HasPrefix(d, "MATERIALIZE"), strings.HasPrefix(d, "CO-ROUTINE"),
				strings.HasPrefix(d, "SCALAR SUBQUERY"), strings.HasPrefix(d, "LIST SUBQUERY"):
				walk(s.ID, false, path+" "+d+":")
			default: // COMPOUND QUERY, LEFT-MOST SUBQUERY, UNION ALL, USE TEMP B-TREE…: same level
				walk(s.ID, nested, path)
			}
		}
	}
	walk(0, false, "")
	return bad
}

// selectiveProbe reports whether a loop step inside another loop visits few rows per outer row.
func selectiveProbe(op, using string) bool {
	if op == "SCAN" {
		return false
	}
	if strings.Contains(using, "INTEGER PRIMARY KEY") {
		return true
	}
	if strings.HasPrefix(using, "VIRTUAL TABLE") {
		return false // an FTS query inside a loop runs the whole MATCH per row
	}
	m := firstRe.FindStringSubmatch(using)
	return m != nil && selectiveKeys[m[1]]
}

// CheckPlan returns an error naming the quadratic steps of query's plan, if any.
func (k *KB) CheckPlan(ctx context.Context, query string, args ...any) error {
	plan, err := k.QueryPlan(ctx, query, args...)
	if err != nil {
		return err
	}
	if bad := QuadraticSteps(plan); len(bad) > 0 {
		var b strings.Builder
		for _, s := range plan {
			fmt.Fprintf(&b, "\n  %d/%d %s", s.ID, s.Parent, s.Detail)
		}
		return fmt.Errorf("quadratic plan: %s; plan:%s", strings.Join(bad, "; "), b.String())
	}
	return nil
}
