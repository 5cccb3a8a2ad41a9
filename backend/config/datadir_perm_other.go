//go:build !unix

package config

import "os"

// checkDataDirOwner: on Windows the data directory is in the user's profile, protected by its ACLs, which Proofglass
// does not inspect (a documented limit).
func checkDataDirOwner(string, os.FileInfo) error { return nil }
