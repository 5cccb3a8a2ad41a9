package glove

// Rank returns word's position in the table (0 = the most frequent word of GloVe's corpus) and whether the table
// holds it: a general-English frequency, which makes a rough inverse document frequency where no index is at hand.
func (t *Table) Rank(word string) (int, bool) {
	i, ok := t.row(word)
	return int(i), ok
}
