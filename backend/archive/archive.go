// Package archive writes and reads a library archive: one versioned zip of collections with their documents, facets, pages, vectors, conversations, runs and the blobs they refer to, imported into another library in one transaction.
package archive

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// Format names the archive format in its manifest.
const Format = "proofglass-library"

// Version is the newest archive version this Proofglass writes and reads; it reads every version up to it.
const Version = 1

// ManifestName is the archive member that describes the others.
const ManifestName = "manifest.json"

// tablePrefix and blobPrefix are where the tables (one JSON object a line) and the blobs (by SHA-256) lie.
const (
	tablePrefix = "tables/"
	tableSuffix = ".jsonl"
	blobPrefix  = "blobs/"
)

// Manifest is manifest.json: what the archive holds and the SHA-256 of every other member.
type Manifest struct {
	Format      string              `json:"format"`
	Version     int                 `json:"version"`
	AppVersion  string              `json:"app_version"`
	Created     time.Time           `json:"created"`
	Collections []CollectionInfo    `json:"collections"`
	Counts      map[string]int64    `json:"counts"` // rows per table
	Blobs       int64               `json:"blobs"`
	Members     []Member            `json:"members"`
	Embedders   map[string]Embedder `json:"embedders"` // by collection name
}

// CollectionInfo names one archived collection and how many documents it holds.
type CollectionInfo struct {
	Name      string `json:"name"`
	Documents int64  `json:"documents"`
}

// Embedder is what a collection's vectors were made with: an import refuses vectors of another embedder.
type Embedder struct {
	Text     string `json:"text"`
	TextDim  int64  `json:"text_dim"`
	Image    string `json:"image,omitempty"`
	ImageDim int64  `json:"image_dim,omitempty"`
}

// Member is one member of the archive with its size and SHA-256.
type Member struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Limits bound what a reader accepts, so a hostile archive (a zip bomb, a huge line) cannot exhaust memory or disk.
type Limits struct {
	MaxMembers  int   // members in the zip
	MaxMember   int64 // uncompressed bytes of one member
	MaxTotal    int64 // uncompressed bytes of all members
	MaxLine     int   // bytes of one table row
	MaxManifest int64 // bytes of manifest.json
}

// DefaultLimits are the limits of Import when none are given.
var DefaultLimits = Limits{MaxMembers: 4 << 20, MaxMember: 8 << 30, MaxTotal: 256 << 30, MaxLine: 64 << 20,
	MaxManifest: 512 << 20}

// ErrInvalid is wrapped by every refusal of an archive that is not a valid library archive.
var ErrInvalid = errors.New("not a valid Proofglass library archive")

// ErrTooNew is wrapped when an archive's version is newer than this Proofglass reads.
var ErrTooNew = errors.New("archive version is newer than this Proofglass reads")

var hashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func tableMember(name string) string { return tablePrefix + name + tableSuffix }

// safeName refuses member names that could point outside a folder if a tool extracted the archive: absolute paths,
// "..", backslashes, control characters. This reader never writes a file by a member's name, but such a name means a
// crafted archive.
func safeName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || path.Clean(name) != name ||
		name == ".." || strings.HasPrefix(name, "../") || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: member name %q is not a plain relative path", ErrInvalid, name)
	}
	return nil
}
