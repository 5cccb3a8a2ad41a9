package agent

import "strings"

// vragAction is the first action tag of a VRAG turn.
type vragAction struct {
	Kind    string // "search", "answer", "bbox", or "" when no tag matched
	Content string // the tag body, trimmed
	Raw     string // the whole tag, as written
	Think   string // the first <think> body, if any (a missing one is tolerated)
}

var vragTags = []string{"search", "answer", "bbox"}

// parseVRAG finds the first action tag like the reference's re.search(r'<(search|answer|bbox)>(.*?)</\1>', DOTALL):
// the leftmost opening tag that has a matching closing tag after it, with the shortest body.
func parseVRAG(s string) vragAction { return parseVRAGTags(s, vragTags) }

// parseVRAGTags is parseVRAG over the given action tags (vragTags and, with the calculator, calculate).
func parseVRAGTags(s string, tags []string) vragAction {
	var a vragAction
	if body, _, ok := firstTag(s, "think", 0); ok {
		a.Think = body
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		for _, t := range tags {
			if !strings.HasPrefix(s[i:], "<"+t+">") {
				continue
			}
			if body, end, ok := firstTag(s, t, i); ok {
				a.Kind, a.Content, a.Raw = t, strings.TrimSpace(body), s[i:end]
				return a
			}
		}
	}
	return a
}

// firstTag returns the body of the first <tag>…</tag> starting at or after from, and the index just past it.
func firstTag(s, tag string, from int) (body string, end int, ok bool) {
	open, cls := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s[from:], open)
	if i < 0 {
		return "", 0, false
	}
	start := from + i + len(open)
	j := strings.Index(s[start:], cls)
	if j < 0 {
		return "", 0, false
	}
	return s[start : start+j], start + j + len(cls), true
}

// thinkSplitter routes a streamed content channel: text inside <think>…</think> is thinking, the rest is content.
// The tags themselves are dropped. Tags split across deltas are held back until they are complete.
type thinkSplitter struct {
	inThink bool
	pending string
}

// feed returns the thinking and content text that can be released after s.
func (t *thinkSplitter) feed(s string) (thinking, content string) {
	buf := t.pending + s
	t.pending = ""
	var th, ct strings.Builder
	for len(buf) > 0 {
		tag := "<think>"
		if t.inThink {
			tag = "</think>"
		}
		if i := strings.Index(buf, tag); i >= 0 {
			t.write(&th, &ct, buf[:i])
			buf = buf[i+len(tag):]
			t.inThink = !t.inThink
			continue
		}
		// Hold back a suffix that could be the start of the tag.
		keep := 0
		for k := min(len(tag)-1, len(buf)); k > 0; k-- {
			if strings.HasSuffix(buf, tag[:k]) {
				keep = k
				break
			}
		}
		t.write(&th, &ct, buf[:len(buf)-keep])
		t.pending = buf[len(buf)-keep:]
		break
	}
	return th.String(), ct.String()
}

// flush releases whatever is held back at the end of a stream.
func (t *thinkSplitter) flush() (thinking, content string) {
	var th, ct strings.Builder
	t.write(&th, &ct, t.pending)
	t.pending = ""
	return th.String(), ct.String()
}

func (t *thinkSplitter) write(th, ct *strings.Builder, s string) {
	if t.inThink {
		th.WriteString(s)
	} else {
		ct.WriteString(s)
	}
}
