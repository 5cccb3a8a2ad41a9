package kb

// cjkRanges are the characters that mark a unit's text as CJK (units.cjk, which sends it to the bigram index): Hangul Jamo, CJK radicals, CJK
// symbols (々 〇 〡-〩 〸-〻), kana, Hangul compatibility Jamo, CJK ideographs (extension A, unified,
// supplementary planes), Hangul syllables, and U+8C48-U+FAFF. Migration 6 wrote them as a GLOB class, which
// migration 11 keeps for existing rows, and hasCJK must agree with it on every text (TestHasCJKMatchesGLOB): the
// class meant U+F900 (豈, compatibility ideographs) but holds its canonical equivalent U+8C48, so everything from
// there to U+FAFF (Yi, private use…) counts as CJK too.
var cjkRanges = [...][2]uint32{
	{0x1100, 0x11FF}, {0x2E80, 0x2FDF}, {0x3005, 0x3005}, {0x3007, 0x3007}, {0x3021, 0x3029}, {0x3038, 0x303B},
	{0x3040, 0x30FF}, {0x3131, 0x318E}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7AF}, {0x8C48, 0xFAFF},
	{0x20000, 0x2FA1F},
}

// hasCJK reports whether text GLOB '*[cjkRanges]*' holds in SQLite: it reads characters as SQLite's GLOB does
// (sqlite3Utf8Read's lenient UTF-8 decoding, up to the first NUL), so the two agree even on invalid UTF-8.
func hasCJK(text string) bool {
	for i := 0; i < len(text); {
		c := uint32(text[i])
		i++
		if c < 0xC0 { // ASCII, or a stray continuation byte that SQLite reads as itself
			if c == 0 {
				return false
			}
			continue
		}
		c = uint32(sqliteUTF8Trans1[c-0xC0])
		for i < len(text) && text[i]&0xC0 == 0x80 {
			c = c<<6 + uint32(text[i]&0x3F)
			i++
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
			continue // SQLite reads U+FFFD
		}
		for _, r := range cjkRanges {
			if c >= r[0] && c <= r[1] {
				return true
			}
		}
	}
	return false
}

// sqliteUTF8Trans1 is SQLite's table of a UTF-8 lead byte's value bits (sqlite3Utf8Trans1), from 0xC0.
var sqliteUTF8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}
