package ingest

import "strings"

// A Format is a kind of file ingest reads. The add dialog offers Extensions; a file found in a folder is taken when
// its name has one of them or of Unread (ingest decides from the content, never the name, which only says where a
// failure shows up).
type Format struct {
	Kind       string   // the document kind ingest records: "pdf", "image" or "video"
	Name       string   // what the add dialog calls these files
	Extensions []string // lower case, with the dot: the names of the files ingest reads as this kind
	// Unread are names that claim this kind though ingest cannot read their content (HEIC, JPEG 2000, ...): a file
	// found in a folder with one is recorded as failed with why, rather than skipped without a word.
	Unread []string
}

// Formats are the files ingest accepts, the one table the add dialog's filters and ingest's name checks read.
var Formats = []Format{
	{Kind: "pdf", Name: "PDF documents", Extensions: []string{".pdf"}},
	{
		Kind: "image", Name: "Images",
		Extensions: []string{".jpg", ".jpeg", ".png", ".gif", ".webp", ".tif", ".tiff", ".bmp"},
		Unread:     []string{".heic", ".icns", ".sgi", ".j2k", ".jp2", ".blp", ".dds", ".fli"},
	},
	{
		Kind: "video", Name: "Videos",
		Extensions: []string{".mp4", ".m4v", ".mov", ".mkv", ".webm", ".ogv", ".ogg", ".avi", ".mpeg", ".mpg", ".ts"},
	},
}

// formatKinds maps every extension of formats, read or not, to its kind.
func formatKinds(formats []Format) map[string]string {
	m := map[string]string{}
	for _, f := range formats {
		for _, e := range append(append([]string(nil), f.Extensions...), f.Unread...) {
			m[strings.ToLower(e)] = f.Kind
		}
	}
	return m
}
