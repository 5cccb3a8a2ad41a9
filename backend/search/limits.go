package search

// SQLite bounds the expressions a statement may hold: a parse tree at most 1,000 deep (SQLITE_MAX_EXPR_DEPTH),
// and a query of a thousand words would build a thousand-term sum or OR. The full-text expressions built from a
// query are capped here, whatever the query's length: the first terms of a query are kept (a very long query is
// pasted text, and its first words are as good as any to rank by), so "Expression tree is too large" never reaches
// the user.
const (
	// maxFTSPhrases bounds the quoted phrases ORed in one FTS5 MATCH (FTS5 flattens an OR chain, but each phrase
	// is a lookup in the index).
	maxFTSPhrases = 512
	// maxScanTerms bounds the instr() tests summed by the substring scan of short CJK runs: a sum of n terms is a
	// tree n deep.
	maxScanTerms = 64
)

// capTerms returns the first n terms.
func capTerms(terms []string, n int) []string {
	if len(terms) > n {
		return terms[:n]
	}
	return terms
}
