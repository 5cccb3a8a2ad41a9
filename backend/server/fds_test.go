package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	fx "proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
)

// dbDescriptors counts this process's open descriptors on the database at path (its -wal and -shm included).
func dbDescriptors(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(target, path) {
			n++
		}
	}
	return n
}

// TestDescriptorsAfterABurst: 100 concurrent clients read a stored run; once the server is idle it holds no more
// descriptors on the database than before (backend/kb's TestDescriptorsReturnAfterABurst forces the worst case).
func TestDescriptorsAfterABurst(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	// Idle connections are closed after 30 s; the test does not wait that long.
	kbtest.CloseIdleConnectionsAfter(t, f.lib.KB, 200*time.Millisecond)
	run, err := f.lib.KB.History.CreateRun(ctx, kb.Run{Question: "How much blood?", Mode: "vrag"})
	if err != nil {
		t.Fatal(err)
	}
	db := f.lib.Config.DBPath()
	// The fixture's own connections go idle and close first.
	fx.WaitFor(t, time.Minute, func() bool { return f.lib.KB.DB().Stats().Idle == 0 }, "the idle connections to close")
	before := dbDescriptors(t, db)
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := 0
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", f.srv.URL+fmt.Sprintf("/v1/runs/%d/events", run.ID), nil)
			req.Header.Set("Authorization", "Bearer "+f.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("status %d", resp.StatusCode)
			}
			mu.Lock()
			peak = max(peak, dbDescriptors(t, db))
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("descriptors on the database: %d before, up to %d during the burst", before, peak)
	fx.WaitFor(t, time.Minute, func() bool { return dbDescriptors(t, db) <= before },
		fmt.Sprintf("the descriptors on the database to fall back to the %d before the burst", before))
}
