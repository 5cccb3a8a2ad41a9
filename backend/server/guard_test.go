package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	fx "proofglass/backend/fixture"
)

// waitQueued waits until l has n requests waiting (the test's gate: arrival order is fixed before anything runs).
func waitQueued(t *testing.T, l *limiter, n int) {
	t.Helper()
	fx.WaitFor(t, 10*time.Second, func() bool { return l.waiting() == n }, fmt.Sprintf("%d requests waiting", n))
}

// TestLimiterAdmitsInArrivalOrder holds the limiter, queues requests one by one, and releases: they must run in
// the order they came, and a late small request must not overtake an earlier large one though it would fit.
func TestLimiterAdmitsInArrivalOrder(t *testing.T) {
	l := newLimiter("test", 4, 16, time.Minute)
	holdBig, ok := l.acquire(context.Background(), 3) // the gate: 3 of 4 units busy
	if !ok {
		t.Fatal("no slot")
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	arrive := func(name string, weight int64, queued int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, ok := l.acquire(context.Background(), weight)
			if !ok {
				t.Errorf("%s refused", name)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			release()
		}()
		waitQueued(t, l, queued)
	}
	arrive("a-100-queries", 100, 1) // needs the whole machine: waits
	arrive("b-1-query", 1, 2)       // one unit is free, but a came first: waits too
	arrive("c-100-queries", 100, 3)
	arrive("d-1-query", 1, 4)
	mu.Lock()
	if len(order) != 0 {
		t.Fatalf("ran before the gate opened: %v", order)
	}
	mu.Unlock()
	holdBig()
	wg.Wait()
	want := []string{"a-100-queries", "b-1-query", "c-100-queries", "d-1-query"}
	for i := range want {
		if i >= len(order) || order[i] != want[i] {
			t.Fatalf("admitted %v, want arrival order %v", order, want)
		}
	}
}

func TestLimiterQueueBoundAndGivingUp(t *testing.T) {
	l := newLimiter("test", 1, 1, 20*time.Millisecond)
	release, _ := l.acquire(context.Background(), 1)
	done := make(chan bool)
	go func() { _, ok := l.acquire(context.Background(), 1); done <- ok }()
	waitQueued(t, l, 1)
	if _, ok := l.acquire(context.Background(), 1); ok {
		t.Error("admitted beyond the queue bound")
	}
	if <-done {
		t.Error("a waiter past its wait was admitted")
	}
	release()
	// The units of a waiter that gave up are not lost: the limiter admits again.
	r2, ok := l.acquire(context.Background(), 1)
	if !ok {
		t.Fatal("units leaked")
	}
	r2()
	r2() // a second release is harmless
	r3, ok := l.acquire(context.Background(), 1)
	if !ok {
		t.Fatal("double release broke the count")
	}
	r3()
}
