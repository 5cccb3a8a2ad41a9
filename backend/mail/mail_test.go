package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

func TestParse(t *testing.T) {
	pdf := []byte("%PDF-1.4\n% a stand-in body\n")
	mixed := crlf(`From: "Ana Ruiz" <ana@example.org>
To: team@example.org
Subject: =?UTF-8?B?UTMgZmlndXJlcyDigJMgZmluYWw=?=
Date: Tue, 14 Nov 2023 09:30:00 +0100
Message-ID: <abc@example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: multipart/alternative; boundary="b2"

--b2
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Revenue rose 4.2 % in Q3; see the attached caf=E9 report.
--b2
Content-Type: text/html; charset=utf-8

<p>Revenue rose <b>4.2 %</b></p>
--b2--
--b1
Content-Type: application/pdf; name="report.pdf"
Content-Disposition: attachment; filename="../../etc/report.pdf"
Content-Transfer-Encoding: base64

` + base64.StdEncoding.EncodeToString(pdf) + `
--b1
Content-Type: image/png
Content-Disposition: inline
Content-ID: <logo>

not really a png
--b1--
`)
	m, err := ParseBytes(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if m.From != `"Ana Ruiz" <ana@example.org>` || m.To != "team@example.org" || m.Subject != "Q3 figures – final" ||
		m.MessageID != "abc@example.org" || m.Date.UTC().Format("2006-01-02 15:04") != "2023-11-14 08:30" {
		t.Errorf("headers: %+v", m)
	}
	if !strings.Contains(m.Body, "café report") || strings.Contains(m.Body, "<b>") {
		t.Errorf("body %q: want the plain part, decoded from Latin-1", m.Body)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Name != "report.pdf" || !bytes.Equal(m.Attachments[0].Data, pdf) ||
		m.Attachments[0].MIME != "application/pdf" {
		t.Errorf("attachments: %+v (want the PDF only, its name without the path; the inline logo is the body's)", m.Attachments)
	}

	htmlOnly := crlf(`From: a@example.org
Subject: =?GB2312?B?xOq2yLGouOY=?=
Content-Type: text/html; charset=utf-8

<html><head><title>x</title><style>p{}</style></head><body><p>First line</p><script>alert(1)</script><table><tr><td>A</td><td>12</td></tr></table></body></html>
`)
	m, err = ParseBytes(htmlOnly)
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "年度报告" {
		t.Errorf("GB2312 subject = %q", m.Subject)
	}
	if m.Body != "First line\n\nA\t12" {
		t.Errorf("HTML body text = %q", m.Body)
	}
	if !m.Date.IsZero() {
		t.Errorf("no Date header gave %v", m.Date)
	}
}

func TestParseRefuses(t *testing.T) {
	for name, raw := range map[string]string{
		"empty":        "",
		"prose":        "Dear all,\nthe figures: 12, 13.\n",
		"no key field": "X-Thing: 1\nOther: 2\n\nbody\n",
		"bad name":     "From me to you: hello\n\nbody\n",
		"continuation": " folded first\nFrom: a\n\n",
	} {
		if _, err := ParseBytes([]byte(raw)); !errors.Is(err, ErrNotMessage) {
			t.Errorf("%s: err = %v, want ErrNotMessage", name, err)
		}
	}
	big := append([]byte("From: a\n\n"), bytes.Repeat([]byte("x"), MaxMessageBytes)...)
	if _, err := Parse(bytes.NewReader(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a message past the bound: err = %v", err)
	}
}

func TestBounds(t *testing.T) {
	// Nesting past MaxDepth and parts past MaxParts are skipped with a word, not followed.
	var b strings.Builder
	b.WriteString("From: a\nSubject: deep\nContent-Type: multipart/mixed; boundary=\"d0\"\n\n")
	for i := 0; i < MaxDepth+3; i++ {
		fmt.Fprintf(&b, "--d%d\nContent-Type: multipart/mixed; boundary=\"d%d\"\n\n", i, i+1)
	}
	fmt.Fprintf(&b, "--d%d\nContent-Type: text/plain\n\nhidden deep\n", MaxDepth+3)
	m, err := ParseBytes([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.Body, "hidden deep") || !strings.Contains(strings.Join(m.Skipped, ";"), "deeper") {
		t.Errorf("deep nesting: body %q skipped %q", m.Body, m.Skipped)
	}
	b.Reset()
	b.WriteString("From: a\nSubject: wide\nContent-Type: multipart/mixed; boundary=\"w\"\n\n")
	for i := 0; i < MaxParts+10; i++ {
		fmt.Fprintf(&b, "--w\nContent-Type: text/csv\nContent-Disposition: attachment; filename=\"t%d.csv\"\n\na,b\n", i)
	}
	b.WriteString("--w--\n")
	m, err = ParseBytes([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Attachments) >= MaxParts || len(m.Skipped) == 0 {
		t.Errorf("wide message: %d attachments, skipped %q", len(m.Attachments), m.Skipped)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":                       "report.pdf",
		"../../etc/passwd":                 "passwd",
		`C:\Users\a\q3.xlsx`:               "q3.xlsx",
		"a\x00b:c?.txt":                    "a_b_c_.txt",
		"..":                               "attachment-3",
		"":                                 "attachment-3",
		strings.Repeat("é", 100) + ".docx": strings.Repeat("é", 57) + ".docx",
	} {
		if got := SafeName(in, 3); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMailbox(t *testing.T) {
	box := "From ana@example.org Tue Nov 14 09:30:00 2023\nFrom: ana@example.org\nSubject: one\n\nfirst body\n>From the start, quoted\n\n" +
		"From bo@example.org Wed Nov 15 10:00:00 2023\nFrom: bo@example.org\nSubject: two\n\nsecond\nFrom here not a separator\n\n" +
		"From cy@example.org Thu Nov 16 11:00:00 2023\r\nFrom: cy@example.org\r\nSubject: three\r\n\r\nthird\r\n"
	var subjects, bodies []string
	err := Mailbox(context.Background(), strings.NewReader(box), func(n int, raw []byte) error {
		m, err := ParseBytes(raw)
		if err != nil {
			return fmt.Errorf("message %d: %w", n, err)
		}
		subjects = append(subjects, m.Subject)
		bodies = append(bodies, m.Body)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(subjects, ",") != "one,two,three" {
		t.Fatalf("subjects %q", subjects)
	}
	if !strings.Contains(bodies[0], "\nFrom the start, quoted") || !strings.Contains(bodies[1], "From here not a separator") {
		t.Errorf("bodies %q", bodies)
	}
	if !LooksLikeMbox([]byte(box)) || LooksLikeMbox([]byte("From: a\n\n")) {
		t.Error("LooksLikeMbox")
	}
	if err := Mailbox(context.Background(), strings.NewReader("hello\n"), func(int, []byte) error { return nil }); !errors.Is(err, ErrNotMessage) {
		t.Errorf("not a mailbox: %v", err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := Mailbox(context.Background(), strings.NewReader(box), func(int, []byte) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("each's error: %v after %d calls", err, calls)
	}
}

func TestHeadLooksLikeMessage(t *testing.T) {
	long := "Received: from mx.example.org by mail.example.org\n\twith ESMTPS id 1\nDKIM-Signature: v=1; a=rsa-sha256;\n\tbh=" +
		strings.Repeat("A", 900) + "\nX-Goo"
	if !HeadLooksLikeMessage([]byte(long)) {
		t.Error("a header running past the head is a message's start")
	}
	if LooksLikeMessage([]byte(long)) {
		t.Error("LooksLikeMessage wants From, Date or Subject in a whole header")
	}
	if HeadLooksLikeMessage([]byte("Dear Sir: hello\nthanks")) {
		t.Error("prose with a colon")
	}
}
