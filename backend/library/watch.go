package library

import (
	"path/filepath"

	"proofglass/backend/ingest"
	"proofglass/backend/watch"
)

// Watcher returns the manager of the library's watched folders, ingesting through in. The data directory is never
// walked (a watched folder that holds it would ingest its own blobs); documents that leave the library take their
// page renders along through the knowledge base's delete hooks.
func (l *Library) Watcher(in *ingest.Ingester, o watch.Options) *watch.Manager {
	if abs, err := filepath.Abs(l.Config.DataDir); err == nil {
		o.Exclude = append(o.Exclude, abs)
	}
	return watch.New(watch.StoreOf(l.KB), in, o)
}
