package kernels

import "sync"

// cache memoizes Classify. A trace has a few hundred to a few thousand
// distinct kernel names, and breakdown, fuse and overlap each classify all
// of them; the demangler and the rule table then run once per name.
var cache = &classCache{m: map[classKey]Class{}}

const (
	maxCachedName = 4 << 10 // longer names are not cached: they are rare and cheap to classify anyway
	maxCached     = 1 << 15 // entries; the cache starts over when full
)

type classKey struct{ name, cat string }

type classCache struct {
	mu sync.Mutex
	m  map[classKey]Class
}

func (c *classCache) get(name, cat string) (Class, bool) {
	if len(name) > maxCachedName {
		return Class{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.m[classKey{name, cat}]
	return cl, ok
}

func (c *classCache) put(name, cat string, cl Class) {
	if len(name) > maxCachedName {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		clear(c.m)
	}
	c.m[classKey{name, cat}] = cl
}
