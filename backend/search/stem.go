package search

// stem reduces a lower-case word token to its Porter stem, the way SQLite FTS5's "porter" tokenizer does, so hit
// boxes can be matched by stem exactly where the word index matched ("degrees" and "degree" both give "degre").
// Written for Proofglass from M.F. Porter's published algorithm ("An algorithm for suffix stripping", 1980), with the
// two changes of Porter's own later reference version that FTS5 also follows (step 2: "bli" → "ble" in place of
// "abli" → "able", and "logi" → "log"). Like FTS5, words shorter than three or longer than 64 bytes are kept as
// they are, the rules work on bytes (any byte that is not an ASCII vowel counts as a consonant), and two of FTS5's
// readings of step 1b are followed: "eed" needs a letter before it, and a final "yy" counts as a double consonant.
func stem(w string) string {
	if len(w) < 3 || len(w) > 64 {
		return w
	}
	s := porter{b: []byte(w)}
	s.step1ab()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	return string(s.b)
}

// porter holds the word being stemmed; every step shortens or rewrites its tail in place.
type porter struct{ b []byte }

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and not a y that follows a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// measure is m in [C](VC)^m[V] for the first n bytes: the number of vowel-consonant sequences.
func (p *porter) measure(n int) int {
	m, i := 0, 0
	for i < n && p.cons(i) { // leading consonants
		i++
	}
	for i < n {
		for i < n && !p.cons(i) {
			i++
		}
		if i == n {
			break
		}
		for i < n && p.cons(i) {
			i++
		}
		m++
	}
	return m
}

// hasVowel reports whether the first n bytes hold a vowel (*v*).
func (p *porter) hasVowel(n int) bool {
	for i := range n {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doubleCons reports whether the first n bytes end in a double consonant (*d).
func (p *porter) doubleCons(n int) bool {
	return n >= 2 && p.b[n-1] == p.b[n-2] && p.cons(n-1)
}

// cvc reports whether the first n bytes end consonant-vowel-consonant, the last not w, x or y (*o): the shape of
// short words like "hop" that take a final e back ("hoping" → "hope").
func (p *porter) cvc(n int) bool {
	if n < 3 || !p.cons(n-1) || p.cons(n-2) || !p.cons(n-3) {
		return false
	}
	switch p.b[n-1] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether the word ends in suf, and the length of the stem before it.
func (p *porter) ends(suf string) (int, bool) {
	n := len(p.b) - len(suf)
	if n < 0 || string(p.b[n:]) != suf {
		return 0, false
	}
	return n, true
}

// set replaces everything after the first n bytes with rep.
func (p *porter) set(n int, rep string) { p.b = append(p.b[:n], rep...) }

// rule is one suffix rewrite of steps 2-4.
type rule struct{ suf, rep string }

// replaceFirst applies the first rule whose suffix the word ends in, if the stem before it has measure > minM.
// Only the first matching suffix is considered, even when its condition fails (Porter's longest-match rule).
func (p *porter) replaceFirst(rules []rule, minM int) {
	for _, r := range rules {
		if n, ok := p.ends(r.suf); ok {
			if p.measure(n) > minM {
				p.set(n, r.rep)
			}
			return
		}
	}
}

// step1ab removes plurals, -ed and -ing, then tidies the stem ("hopping" → "hop", "filing" → "file").
func (p *porter) step1ab() {
	switch {
	case hasSuffix(p.b, "sses"), hasSuffix(p.b, "ies"):
		p.b = p.b[:len(p.b)-2]
	case hasSuffix(p.b, "ss"):
	case hasSuffix(p.b, "s"):
		p.b = p.b[:len(p.b)-1]
	}
	if n, ok := p.ends("eed"); ok && n > 0 {
		if p.measure(n) > 0 {
			p.b = p.b[:len(p.b)-1]
		}
		return
	}
	n, ok := p.ends("ed")
	if !ok {
		n, ok = p.ends("ing")
	}
	if !ok || !p.hasVowel(n) {
		return
	}
	p.b = p.b[:n]
	switch {
	case hasSuffix(p.b, "at"), hasSuffix(p.b, "bl"), hasSuffix(p.b, "iz"):
		p.b = append(p.b, 'e')
	case p.doubleCons(n) || hasSuffix(p.b, "yy"):
		if c := p.b[n-1]; c != 'l' && c != 's' && c != 'z' {
			p.b = p.b[:n-1]
		}
	case p.measure(n) == 1 && p.cvc(n):
		p.b = append(p.b, 'e')
	}
}

// step1c turns a final y into i when the stem has another vowel ("happy" → "happi").
func (p *porter) step1c() {
	if n, ok := p.ends("y"); ok && p.hasVowel(n) {
		p.b[n] = 'i'
	}
}

var step2Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"}, {"bli", "ble"},
	{"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"},
	{"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"},
	{"iviti", "ive"}, {"biliti", "ble"}, {"logi", "log"},
}

// step2 maps double suffixes to single ones ("relational" → "relate").
func (p *porter) step2() { p.replaceFirst(step2Rules, 0) }

var step3Rules = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

// step3 strips -ful, -ness and friends ("hopeful" → "hope").
func (p *porter) step3() { p.replaceFirst(step3Rules, 0) }

// step4Rules are ordered so that a longer suffix is tried before one it ends with (ement, ment, ent).
var step4Rules = []rule{
	{"al", ""}, {"ance", ""}, {"ence", ""}, {"er", ""}, {"ic", ""}, {"able", ""}, {"ible", ""}, {"ant", ""},
	{"ement", ""}, {"ment", ""}, {"ent", ""}, {"ou", ""}, {"ism", ""}, {"ate", ""}, {"iti", ""}, {"ous", ""},
	{"ive", ""}, {"ize", ""},
}

// step4 removes a suffix from a stem of measure > 1 ("adjustment" → "adjust"); -ion only after s or t.
func (p *porter) step4() {
	if n, ok := p.ends("ion"); ok {
		if n > 0 && (p.b[n-1] == 's' || p.b[n-1] == 't') && p.measure(n) > 1 {
			p.b = p.b[:n]
		}
		return
	}
	p.replaceFirst(step4Rules, 1)
}

// step5 removes a final e and undoubles a final ll on long stems ("probate" → "probat", "controll" → "control").
func (p *porter) step5() {
	if n, ok := p.ends("e"); ok {
		if m := p.measure(n); m > 1 || (m == 1 && !p.cvc(n)) {
			p.b = p.b[:n]
		}
	}
	if n := len(p.b); n > 0 && p.b[n-1] == 'l' && p.doubleCons(n) && p.measure(n) > 1 {
		p.b = p.b[:n-1]
	}
}

func hasSuffix(b []byte, suf string) bool {
	return len(b) >= len(suf) && string(b[len(b)-len(suf):]) == suf
}
