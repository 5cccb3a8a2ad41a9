package cli

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/archive"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

// member is one member of an archive being rewritten; raw members keep the sizes and hash the test gives them.
type member struct {
	name string
	data []byte
	raw  *zip.FileHeader // written with CreateRaw: data is the compressed stream, the header says what it claims
}

// readMembers reads an archive's members in order, and its manifest.
func readMembers(t *testing.T, file string) ([]member, archive.Manifest) {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var ms []member
	var m archive.Manifest
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == archive.ManifestName {
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ms = append(ms, member{name: f.Name, data: b})
	}
	return ms, m
}

// writeMembers writes members and a manifest; with rehash, the manifest's sizes and hashes are those of the
// members as written (an archive consistent with itself), else the manifest is written as given.
func writeMembers(t *testing.T, ms []member, m *archive.Manifest, rehash bool) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "bad.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if rehash {
		m.Members = nil
		for _, x := range ms {
			sum := sha256.Sum256(x.data)
			size := int64(len(x.data))
			if x.raw != nil {
				size = int64(x.raw.UncompressedSize64)
			}
			m.Members = append(m.Members, archive.Member{Name: x.name, Size: size, SHA256: hex.EncodeToString(sum[:])})
		}
	}
	for _, x := range ms {
		var w io.Writer
		var err error
		if x.raw != nil {
			w, err = zw.CreateRaw(x.raw)
		} else {
			w, err = zw.CreateHeader(&zip.FileHeader{Name: x.name, Method: zip.Deflate})
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Write(x.data)
	}
	if m != nil {
		w, _ := zw.Create(archive.ManifestName)
		json.NewEncoder(w).Encode(m)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func edit(ms []member, name string, fn func([]byte) []byte) []member {
	out := make([]member, len(ms))
	copy(out, ms)
	for i := range out {
		if out[i].name == name {
			out[i].data = fn(append([]byte(nil), out[i].data...))
		}
	}
	return out
}

// editLine rewrites the first line of a table member holding old.
func editLine(ms []member, name, old, new string) []member {
	return edit(ms, name, func(b []byte) []byte { return []byte(strings.Replace(string(b), old, new, 1)) })
}

func copyManifest(m archive.Manifest) *archive.Manifest {
	c := m
	c.Counts = map[string]int64{}
	for k, v := range m.Counts {
		c.Counts[k] = v
	}
	c.Members = append([]archive.Member(nil), m.Members...)
	return &c
}

// bombMember is a member of 64 MB of zeros, compressed to a few kilobytes, that claims to be size bytes.
func bombMember(t *testing.T, name string, size uint64) member {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		fw.Write(zeros)
	}
	fw.Close()
	return member{name: name, data: buf.Bytes(), raw: &zip.FileHeader{Name: name, Method: zip.Deflate,
		CompressedSize64: uint64(buf.Len()), UncompressedSize64: size}}
}

// libraryState is what an import must not change when it fails: every transferred table's row count and the
// library's view (documents, facets, conversations, runs).
func importTarget(t *testing.T, data string) string {
	t.Helper()
	k := openData(t, data)
	var b strings.Builder
	for _, tb := range kb.TransferTables {
		fmt.Fprintf(&b, "%s=%d ", tb.Name, kbtest.CountRows(t, k, tb.Name))
	}
	k.Close()
	return b.String() + "\n" + libraryView(t, data, "variance")
}

// TestLibraryImportRefusesBadArchives: each damaged or hostile archive is refused with an error that names the
// reason, and leaves the target library exactly as it was.
func TestLibraryImportRefusesBadArchives(t *testing.T) {
	src := t.TempDir()
	archiveLibrary(t, src, "papers", archivePDFs...)
	askOnce(t, src, "papers", "variance")
	good := exportArchive(t, src, "--collection", "papers")
	ms, m := readMembers(t, good)

	dst := t.TempDir()
	archiveLibrary(t, dst, "papers", archivePDFs[1])
	before := importTarget(t, dst)

	var unitsSize int64
	for _, x := range m.Members {
		if x.Name == "tables/units.jsonl" {
			unitsSize = x.Size
		}
	}
	notZip := filepath.Join(t.TempDir(), "not.zip")
	os.WriteFile(notZip, []byte("PK\x03\x04 this is not really a zip"), 0o600)

	cases := []struct {
		name, file, want string
	}{
		{"not a zip", notZip, "not a zip file"},
		{"no manifest", writeMembers(t, ms, nil, false), "no manifest.json"},
		{"manifest not JSON", writeMembers(t, append(ms, member{name: archive.ManifestName, data: []byte("{bad")}), nil, false),
			"manifest.json is not JSON"},
		{"newer version", func() string { c := copyManifest(m); c.Version = 2; return writeMembers(t, ms, c, false) }(),
			"the archive is version 2, this Proofglass reads up to version 1"},
		{"other format", func() string { c := copyManifest(m); c.Format = "zip"; return writeMembers(t, ms, c, false) }(),
			`names format "zip"`},
		{"altered table", writeMembers(t, editLine(ms, "tables/units.jsonl", "the", "thE"), copyManifest(m), false),
			"member tables/units.jsonl: SHA-256"},
		{"path traversal", writeMembers(t, append(ms, member{name: "../../evil", data: []byte("x")}), copyManifest(m), true),
			`member name "../../evil" is not a plain relative path`},
		{"duplicate member", writeMembers(t, append(ms, ms[1]), copyManifest(m), false), "appears twice"},
		{"wrong count", func() string { c := copyManifest(m); c.Counts["units"]++; return writeMembers(t, ms, c, false) }(),
			"rows, manifest.json counts"},
		{"bad document sha256", writeMembers(t, editLine(ms, "tables/documents.jsonl", `"sha256":"`, `"sha256":"zz`), copyManifest(m), true),
			"is not a SHA-256 hash"},
		{"bad JSON row", writeMembers(t, edit(ms, "tables/units.jsonl", func(b []byte) []byte { return append(b, "{oops\n"...) }),
			func() *archive.Manifest { c := copyManifest(m); c.Counts["units"]++; return c }(), true),
			"tables/units.jsonl line"},
		{"dangling reference", writeMembers(t, editLine(ms, "tables/units.jsonl", `"document_id":`, `"document_id":9999`), copyManifest(m), true),
			"document 9999"},
		{"bad unit kind", writeMembers(t, editLine(ms, "tables/units.jsonl", `"kind":"page"`, `"kind":"bogus"`), copyManifest(m), true),
			"CHECK constraint failed"},
		{"zip bomb that lies about its size", writeMembers(t, append(dropMember(ms, "tables/units.jsonl"),
			bombMember(t, "tables/units.jsonl", uint64(unitsSize))), copyManifest(m), false),
			"member tables/units.jsonl decompresses to more than it declares"},
		{"zip bomb over the limit", writeMembers(t, append(dropMember(ms, "tables/units.jsonl"),
			bombMember(t, "tables/units.jsonl", 1<<40)), copyManifest(m), true), "more than the"},
		{"blob unlike its name", writeMembers(t, blobSwap(ms), copyManifest(m), true), "not named by its SHA-256"},
		{"other embedder", writeMembers(t, editLine(ms, "tables/collections.jsonl", `"text_dim":`, `"text_dim":7`), copyManifest(m), true),
			"embedders differ"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, dst, "library", "import", c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import = %v (%s), want an error containing %q", err, out, c.want)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), c.file) {
				t.Errorf("error %q does not name the file", err)
			}
			if after := importTarget(t, dst); after != before {
				t.Fatalf("a refused import changed the library:\n--- before\n%s\n--- after\n%s", before, after)
			}
		})
	}
	// The good archive still imports into the library the refusals left alone.
	if rep := importArchive(t, dst, good); added(rep, "documents") != 1 {
		t.Fatalf("good import after the refusals: %v", rep)
	}
}

func dropMember(ms []member, name string) []member {
	var out []member
	for _, x := range ms {
		if x.name != name {
			out = append(out, x)
		}
	}
	return out
}

// blobSwap gives the first blob member the content of another.
func blobSwap(ms []member) []member {
	out := append([]member(nil), ms...)
	var first = -1
	for i, x := range out {
		if strings.HasPrefix(x.name, "blobs/") {
			if first < 0 {
				first = i
				continue
			}
			out[first].data = x.data
			break
		}
	}
	return out
}

// TestLibraryImportReadsLaterAdditions: members and row fields this version does not know (a later version's
// additions within version 1) are ignored, and the archive imports as it would without them.
func TestLibraryImportReadsLaterAdditions(t *testing.T) {
	src := t.TempDir()
	archiveLibrary(t, src, "papers", archivePDFs[0])
	ms, m := readMembers(t, exportArchive(t, src, "--collection", "papers"))
	ms = editLine(ms, "tables/documents.jsonl", `{"id":`, `{"colour":"blue","id":`)
	ms = append(ms, member{name: "tables/annotations.jsonl", data: []byte("{\"a\":1}\n")},
		member{name: "extras/notes.txt", data: []byte("later")})
	file := writeMembers(t, ms, copyManifest(m), true)
	rep := importArchive(t, t.TempDir(), file)
	if added(rep, "documents") != 1 || added(rep, "units") == 0 {
		t.Fatalf("import of an archive with later additions: %v", rep)
	}
}
