package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"proofglass/backend/imagefile"
	"proofglass/backend/pdf"
)

// Failure codes: what went wrong, for a window that says it in the user's language. The English Error text beside a
// code says the same; a code's meaning never changes (the window's catalogues translate them: backend.ingest.<code>).
const (
	CodePasswordRequired = "password_required" // an encrypted PDF; retry with its password
	CodeWrongPassword    = "wrong_password"    // the password given does not open it
	CodeDamaged          = "damaged"           // the file cannot be opened as what it claims to be
	CodeEmpty            = "empty"             // a file of zero bytes
	CodeNotPDF           = "not_pdf"           // named .pdf, holds no PDF, image or video
	CodeUnsupportedImage = "unsupported_image" // an image format Proofglass does not read
	CodeUnsupportedVideo = "unsupported_video" // a video format Proofglass does not read
	CodeUnsupported      = "unsupported"       // not a PDF, image or video
	CodeNotFound         = "not_found"         // the file is not there
	CodePermission       = "permission"        // the file may not be read
	CodeUnreadable       = "unreadable"        // reading the file failed otherwise
	CodeTimeout          = "timeout"           // stopped after the per-file time limit
)

// rejectError is a file Proofglass does not store, with its code.
type rejectError struct {
	name, code, text string
}

func (e *rejectError) Error() string { return e.name + ": " + e.text }

// timeoutError is a document stopped after the per-file time limit.
type timeoutError struct {
	name  string
	limit time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s: stopped after the per-file time limit of %s", e.name, e.limit)
}

// readError is a file that could not be opened or read before it was stored.
type readError struct {
	path string
	err  error
}

func (e *readError) Error() string { return fmt.Sprintf("%s: %v", e.path, e.err) }
func (e *readError) Unwrap() error { return e.err }

// codeOf names err's failure and the values its message needs ("" when it has no code).
func codeOf(err error, name, path string) (string, map[string]string) {
	if err == nil {
		return "", nil
	}
	var rej *rejectError
	var tmo *timeoutError
	var pw *pdf.PasswordError
	switch {
	case errors.As(err, &rej):
		return rej.code, map[string]string{"name": rej.name}
	case errors.As(err, &tmo):
		return CodeTimeout, map[string]string{"name": tmo.name, "limit": tmo.limit.String()}
	case errors.As(err, &pw):
		if pw.Wrong {
			return CodeWrongPassword, map[string]string{"name": name}
		}
		return CodePasswordRequired, map[string]string{"name": name}
	case errors.Is(err, pdf.ErrDamaged), errors.Is(err, imagefile.ErrCorrupt):
		return CodeDamaged, map[string]string{"name": name}
	case errors.Is(err, fs.ErrNotExist):
		return CodeNotFound, map[string]string{"path": path}
	case errors.Is(err, fs.ErrPermission):
		return CodePermission, map[string]string{"path": path}
	}
	var re *readError
	if errors.As(err, &re) {
		return CodeUnreadable, map[string]string{"path": re.path}
	}
	return "", nil
}

// failed is a failed event's Progress fields: the English text, its code and its values.
func failed(p Progress, err error) Progress {
	p.Stage, p.Error = StageFailed, err.Error()
	p.Code, p.Params = codeOf(err, p.Name, p.Path)
	if p.Name == "" && p.Path != "" {
		p.Name = filepath.Base(p.Path)
	}
	return p
}
