package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/regularfile"
)

// file is one input file; fromFolder marks files found by walking a folder, where files of other types are
// skipped quietly instead of failing.
type file struct {
	path       string
	fromFolder bool
	root       string // the walked folder (absolute) when known: no link below it is followed
	// A part of another file (an attachment, a mailbox's message) is read from a temporary copy at path, but is
	// known by its own name and where it came from: source is the file that holds it, depth how deeply.
	name   string
	source string
	depth  int
}

// shown is the path a file's document records and its progress names.
func (f file) shown() string {
	if f.source != "" {
		return f.source
	}
	return f.path
}

// displayName is the name a file's document gets.
func (f file) displayName() string {
	if f.name != "" {
		return f.name
	}
	return filepath.Base(f.path)
}

// expand turns paths (files and folders, recursively) into the list of files, in a stable order. Hidden files and
// folders inside a walked folder are skipped; a path that does not exist fails the batch before anything is done.
func expand(paths []string) ([]file, error) {
	var out []file
	seen := map[string]bool{}
	add := func(f file) {
		abs, err := filepath.Abs(f.path)
		if err == nil {
			f.path = abs
		}
		if !seen[f.path] {
			seen[f.path] = true
			out = append(out, f)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("add %s: %w", p, err)
		}
		if !st.IsDir() {
			add(file{path: p})
			continue
		}
		var found []string
		walkRoot := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			// A folder named through a link (a person chose it): walk what it points to. WalkDir would take the
			// link itself as the root, a file, and find nothing.
			walkRoot = p + string(filepath.Separator)
		}
		err = filepath.WalkDir(walkRoot, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable subfolder does not stop the walk
			}
			if q != walkRoot && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				found = append(found, q)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("add %s: %w", p, err)
		}
		sort.Strings(found)
		root, err := filepath.Abs(p)
		if err != nil {
			root = ""
		}
		for _, q := range found {
			add(file{path: q, fromFolder: true, root: root})
		}
	}
	return out, nil
}

// kindOf maps a sniffed type to a document kind ("" when Proofglass cannot ingest it).
func kindOf(k imagefile.Kind) string {
	switch k.Class() {
	case imagefile.ClassDocument:
		return "pdf"
	case imagefile.ClassImage:
		return "image"
	case imagefile.ClassVideo:
		return "video"
	}
	return ""
}

func mimeOf(k imagefile.Kind) string {
	if m := k.DocumentMIME(); m != "" {
		return m
	}
	switch k {
	case imagefile.JPEG, imagefile.PNG, imagefile.GIF, imagefile.WebP, imagefile.TIFF, imagefile.BMP:
		return "image/" + string(k)
	case imagefile.MP4:
		return "video/mp4"
	case imagefile.Matroska:
		return "video/x-matroska"
	case imagefile.Ogg:
		return "video/ogg"
	case imagefile.AVI:
		return "video/x-msvideo"
	case imagefile.MPEGPS, imagefile.MPEGTS:
		return "video/mpeg"
	}
	return ""
}

// extKinds is the kind each extension of Formats claims.
var extKinds = formatKinds(Formats)

// knownExtension reports whether a name claims to be a PDF, image or video.
func knownExtension(path string) bool { return extKinds[strings.ToLower(filepath.Ext(path))] != "" }

// kindFromExtension is the kind a rejected file claims to be, so its failure shows up where the user expects it.
func kindFromExtension(path string) string {
	if k := extKinds[strings.ToLower(filepath.Ext(path))]; k != "" {
		return k
	}
	return "pdf"
}

// rejectReason says why a file whose content is not a PDF, image or video is refused; why, when not nil, is what
// the sniffer found wrong with content that looked like a document (a damaged zip).
func rejectReason(path string, size int64, why error) error {
	name := filepath.Base(path)
	if size == 0 {
		return &rejectError{name, CodeEmpty, "empty file"}
	}
	claim := extKinds[strings.ToLower(filepath.Ext(path))]
	if f, ok := formatOf(path); ok && claim == "pdf" && strings.ToLower(filepath.Ext(path)) != ".pdf" {
		// A paged format other than PDF: the file cannot be opened as the one its name claims.
		text := "not one of the " + f.noun() + " Proofglass reads"
		if slices.Contains(f.Unread, strings.ToLower(filepath.Ext(path))) {
			text = "unsupported format: Proofglass reads " + strings.Join(f.Extensions, ", ") + " of the " + f.noun()
			return &rejectError{name, CodeUnsupported, text}
		}
		if why != nil {
			text += ": the content is " + why.Error()
		} else {
			text += " (the content is none of them whatever the name says)"
		}
		return &rejectError{name, CodeDamaged, text}
	}
	if why != nil && claim == "" {
		return &rejectError{name, CodeUnsupported, "unsupported format: " + why.Error()}
	}
	switch claim {
	case "pdf":
		return &rejectError{name, CodeNotPDF, "not a PDF (the content is not a PDF, image or video whatever the name says)"}
	case "image":
		return &rejectError{name, CodeUnsupportedImage, "unsupported or unrecognised image format (Proofglass reads JPEG, PNG, GIF, WebP, TIFF, BMP)"}
	case "video":
		return &rejectError{name, CodeUnsupportedVideo, "unsupported or unrecognised video format"}
	}
	return &rejectError{name, CodeUnsupported, "unsupported format: not one of the documents, images or videos Proofglass reads"}
}

// hashReader hashes r to its end.
func hashReader(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// rejectSpan is how much of each end of a refused file its fingerprint reads.
const rejectSpan = 4 << 20

// rejectedFingerprint identifies a file whose content Proofglass refuses, for its failed row: its SHA-256 when it is
// small, else the SHA-256 of its size and its first and last rejectSpan bytes. Nothing is stored from it, so a full
// hash would only cost time: a 20 GB file named .pdf took 91 s to be told it is not a PDF (issue 41, row 6).
func rejectedFingerprint(r io.ReaderAt, size int64) (string, error) {
	if size <= 2*rejectSpan {
		sha, _, err := hashReader(io.NewSectionReader(r, 0, size))
		return sha, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "proofglass refused file\x00%d\x00", size)
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, rejectSpan)); err != nil {
		return "", err
	}
	if _, err := io.Copy(h, io.NewSectionReader(r, size-rejectSpan, rejectSpan)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ctxReader stops reading once ctx ends, so a huge (or endless) file being hashed or stored does not outlive an
// interrupt.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// unwrapPath drops the path an *fs.PathError repeats, since readError names the file already.
func unwrapPath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	var nr *regularfile.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("not a regular file (%s)%w", nr.What, silent{regularfile.ErrNotRegular})
	}
	return err
}

// silent wraps an error for errors.Is without adding to the message.
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }

// claimOf is the watch claim of a file opened with info st, or nil outside a watched folder.
func claimOf(w *Watched, path string, st fs.FileInfo) *kb.WatchClaim {
	if w == nil {
		return nil
	}
	rel, err := filepath.Rel(w.Root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil
	}
	return &kb.WatchClaim{FolderID: w.FolderID, Rel: filepath.ToSlash(rel), Size: st.Size(), MtimeNS: st.ModTime().UnixNano(),
		Mode: int64(st.Mode().Perm())}
}
