package pdf

import (
	"container/list"
	"sync"
)

// Cache is a least-recently-used map from keys to byte slices (encoded renders), bounded by the total size of its
// values. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recently used
	items map[string]*list.Element
	hits  int64
	miss  int64
}

type cacheEntry struct {
	key  string
	data []byte
}

// NewCache returns a Cache holding at most maxBytes of values.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value for key and marks it recently used.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		c.miss++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).data, true
}

// Put stores data under key, evicting the least recently used values until the total fits. A value larger than
// the whole cache is not stored.
func (c *Cache) Put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.size -= int64(len(el.Value.(*cacheEntry).data))
		c.order.Remove(el)
		delete(c.items, key)
	}
	if int64(len(data)) > c.max {
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, data: data})
	c.size += int64(len(data))
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.size -= int64(len(e.data))
	}
}

// Stats reports the cache's size in bytes, entry count, hits and misses.
func (c *Cache) Stats() (bytes int64, entries int, hits, misses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, len(c.items), c.hits, c.miss
}
