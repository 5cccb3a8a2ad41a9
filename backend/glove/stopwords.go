package glove

// stopWords are English function words: frequent everywhere, so their vectors pull every mean towards the same
// direction and blur the difference between texts. Written for Proofglass; lower-case, as Tokens produces them.
var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range []string{
		// articles, conjunctions, prepositions
		"a", "an", "the", "and", "or", "but", "nor", "so", "yet", "if", "then", "else", "than", "as",
		"of", "in", "on", "at", "by", "for", "with", "without", "to", "from", "into", "onto", "upon", "about",
		"above", "below", "over", "under", "between", "among", "through", "during", "before", "after",
		"since", "until", "till", "against", "within", "across", "along", "around", "behind", "beyond",
		"off", "out", "up", "down", "per", "via", "toward", "towards", "while", "whereas", "because",
		"although", "though", "unless", "whether",
		// pronouns and determiners
		"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours",
		"yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its",
		"itself", "they", "them", "their", "theirs", "themselves", "this", "that", "these", "those",
		"who", "whom", "whose", "which", "what", "whatever", "whichever", "whoever",
		"some", "any", "each", "every", "either", "neither", "both", "all", "such", "same", "other",
		"another", "own", "one", "ones",
		// auxiliaries and modals
		"be", "am", "is", "are", "was", "were", "been", "being", "have", "has", "had", "having",
		"do", "does", "did", "doing", "done", "can", "could", "may", "might", "must", "shall", "should",
		"will", "would", "ought",
		// adverbs and particles
		"not", "no", "only", "very", "too", "also", "just", "even", "still", "already", "here", "there",
		"where", "when", "why", "how", "now", "again", "ever", "never", "more", "most", "less", "least",
		"much", "many", "few", "further", "once", "thus", "hence", "therefore", "however", "s", "t", "d",
		"ll", "m", "re", "ve", "etc",
	} {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether tok (lower-case) is an English stop word that Embed ignores.
func IsStopWord(tok string) bool {
	_, ok := stopWords[tok]
	return ok
}
