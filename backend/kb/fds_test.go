package kb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"proofglass/backend/fixture"
)

// descriptors counts this process's open descriptors on the database at path: the file, its -wal and its -shm.
func descriptors(t *testing.T, path string) (db, wal, shm int) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || !strings.HasPrefix(target, path) {
			continue
		}
		switch {
		case strings.HasSuffix(target, "-wal"):
			wal++
		case strings.HasSuffix(target, "-shm"):
			shm++
		default:
			db++
		}
	}
	return db, wal, shm
}

// TestDescriptorsReturnAfterABurst: 100 concurrent readers grow the pool to 100 connections; once they are done and
// the pool has been idle, the process holds no more descriptors on the database than before the burst. (SQLite keeps
// the database descriptor of a connection closed while others are open, so trimming the pool to its idle limit alone
// left 100.)
func TestDescriptorsReturnAfterABurst(t *testing.T) {
	defer func(d time.Duration) { connMaxIdle = d }(connMaxIdle)
	connMaxIdle = 200 * time.Millisecond
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "proofglass.db")
	k, err := Open(ctx, path, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Docs.EnsureCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	before, _, _ := descriptors(t, path)

	// 100 clients each hold a read transaction at the same moment, so each has its own connection.
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	errs := make(chan error, 100)
	for range 100 {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			tx, err := k.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				errs <- err
				ready.Done()
				return
			}
			defer tx.Rollback()
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM collections").Scan(&n); err != nil {
				errs <- err
			}
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	peak, peakWAL, _ := descriptors(t, path)
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if peak < 100 {
		t.Fatalf("%d descriptors on the database during the burst: the 100 readers did not each hold a connection", peak)
	}
	t.Logf("database descriptors: %d before; %d (+%d -wal) with 100 readers", before, peak, peakWAL)
	fixture.WaitFor(t, time.Minute, func() bool {
		db, wal, shm := descriptors(t, path)
		return db+wal+shm <= before+2
	}, fmt.Sprintf("the descriptors on the database to fall back to the %d before the burst (+2)", before))
	// The pool still works after giving every connection back.
	if _, err := k.Docs.Collections(ctx); err != nil {
		t.Fatal(err)
	}
}
